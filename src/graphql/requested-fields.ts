import type { FieldNode, FragmentDefinitionNode, GraphQLResolveInfo, SelectionSetNode } from 'graphql';

type Selected = Pick<GraphQLResolveInfo, 'fieldNodes' | 'fragments'>;

/** Calls `visit` with every field selected directly under the field being resolved, through fragments and inline fragments. */
function eachSelectedField(info: Selected, visit: (field: FieldNode) => void): void {
  const visited = new Set<string>();
  const collect = (selectionSet: SelectionSetNode | undefined): void => {
    for (const selection of selectionSet?.selections ?? []) {
      if (selection.kind === 'Field') visit(selection);
      else if (selection.kind === 'InlineFragment') collect(selection.selectionSet);
      else if (!visited.has(selection.name.value)) {
        visited.add(selection.name.value);
        collect((info.fragments[selection.name.value] as FragmentDefinitionNode | undefined)?.selectionSet);
      }
    }
  };
  for (const node of info.fieldNodes as readonly FieldNode[]) collect(node.selectionSet);
}

/**
 * The names of the fields a query selects under the field being resolved (fragments and inline
 * fragments included, `@skip`/`@include` ignored: a superset is safe). Loaders use them to read
 * only the columns an answer shows.
 */
export function requestedFields(info: Selected): Set<string> {
  const names = new Set<string>();
  eachSelectedField(info, (field) => names.add(field.name.value));
  return names;
}

/** The nodes of every `name` field selected under the field being resolved (under any alias). */
export function subfieldNodes(info: Selected, name: string): FieldNode[] {
  const nodes: FieldNode[] = [];
  eachSelectedField(info, (field) => {
    if (field.name.value === name) nodes.push(field);
  });
  return nodes;
}
