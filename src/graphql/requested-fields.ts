import type { FieldNode, FragmentDefinitionNode, GraphQLResolveInfo, SelectionSetNode } from 'graphql';

/**
 * The names of the fields a query selects under the field being resolved (fragments and inline
 * fragments included, `@skip`/`@include` ignored: a superset is safe). Loaders use them to read
 * only the columns an answer shows.
 */
export function requestedFields(info: Pick<GraphQLResolveInfo, 'fieldNodes' | 'fragments'>): Set<string> {
  const names = new Set<string>();
  const visited = new Set<string>();
  const collect = (selectionSet: SelectionSetNode | undefined): void => {
    for (const selection of selectionSet?.selections ?? []) {
      if (selection.kind === 'Field') names.add(selection.name.value);
      else if (selection.kind === 'InlineFragment') collect(selection.selectionSet);
      else if (!visited.has(selection.name.value)) {
        visited.add(selection.name.value);
        collect((info.fragments[selection.name.value] as FragmentDefinitionNode | undefined)?.selectionSet);
      }
    }
  };
  for (const node of info.fieldNodes as readonly FieldNode[]) collect(node.selectionSet);
  return names;
}
