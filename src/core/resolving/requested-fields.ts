import {
  valueFromAST,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLInputType,
  type GraphQLResolveInfo,
  type SelectionSetNode,
} from 'graphql';

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

/**
 * The value of argument `argument` of every `name` field selected under the field being resolved (under
 * any alias), as `type` reads it (variables included; an absent or invalid one left out). A list resolver
 * uses it to read at once what its items' field resolvers will ask for (`Product.highlights(fields:)`).
 */
export function selectedArguments(
  info: Selected & Pick<GraphQLResolveInfo, 'variableValues'>,
  name: string,
  argument: string,
  type: GraphQLInputType,
): unknown[] {
  const values: unknown[] = [];
  for (const field of subfieldNodes(info, name)) {
    const node = field.arguments?.find((a) => a.name.value === argument);
    const value = node ? valueFromAST(node.value, type, info.variableValues) : undefined;
    if (value !== undefined) values.push(value);
  }
  return values;
}
