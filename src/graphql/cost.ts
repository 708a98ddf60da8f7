import {
  getNamedType,
  getNullableType,
  GraphQLList,
  isCompositeType,
  isObjectType,
  Kind,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { guardError } from './guards.ts';

/** Every list field returns at most this many items (DECISIONS §6). */
export const MAX_LIST_LIMIT = 100;

/**
 * The cost of an operation is the largest number of objects it can return:
 *   cost(selection set) = Σ cost(field)
 *   cost(field)         = 0 for a scalar field
 *                       = n × (1 + cost(its selection set)) for an object or list field,
 *                         n = 1 for an object, n = the field's effective `limit` for a list
 *                         (the argument or variable, else the schema default, clamped to 1..100).
 * So `{ users(limit: 10) { posts { comments { author { name } } } } }` costs
 * 10 × (1 + 20 × (1 + 20 × (1 + 1))) = 8,210. Introspection fields cost nothing.
 */
export function operationCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Record<string, unknown> | null | undefined,
): { cost: number; operation: OperationDefinitionNode | undefined } {
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  const operation = operationName ? operations.find((o) => o.name?.value === operationName) : operations[0];
  if (!operation) return { cost: 0, operation };
  const root = schema.getRootType(operation.operation);
  const fragments = new Map(
    document.definitions
      .filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION)
      .map((d) => [d.name.value, d]),
  );

  function limitOf(field: FieldNode, definition: GraphQLField<unknown, unknown>): number {
    const argument = field.arguments?.find((a) => a.name.value === 'limit');
    let value: unknown = undefined;
    if (argument?.value.kind === Kind.INT) value = Number(argument.value.value);
    else if (argument?.value.kind === Kind.VARIABLE) value = variables?.[argument.value.name.value];
    if (!Number.isInteger(value)) value = definition.args.find((a) => a.name === 'limit')?.defaultValue;
    if (!Number.isInteger(value)) return MAX_LIST_LIMIT;
    return Math.min(MAX_LIST_LIMIT, Math.max(1, value as number));
  }

  function costOf(set: SelectionSetNode, type: GraphQLNamedType, visiting: Set<string>): number {
    let total = 0;
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        if (selection.name.value.startsWith('__') || !isObjectType(type)) continue;
        const definition = type.getFields()[selection.name.value];
        if (!definition || !selection.selectionSet) continue;
        const fieldType = getNamedType(definition.type);
        if (!isCompositeType(fieldType)) continue;
        const n = getNullableType(definition.type) instanceof GraphQLList ? limitOf(selection, definition) : 1;
        total += n * (1 + costOf(selection.selectionSet, fieldType, visiting));
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const narrowed = selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : type;
        total += costOf(selection.selectionSet, narrowed ?? type, visiting);
      } else {
        const name = selection.name.value;
        const definition = fragments.get(name);
        if (!definition || visiting.has(name)) continue;
        visiting.add(name);
        total += costOf(definition.selectionSet, schema.getType(definition.typeCondition.name.value) ?? type, visiting);
        visiting.delete(name);
      }
    }
    return total;
  }

  return { cost: root ? costOf(operation.selectionSet, root, new Set()) : 0, operation };
}

/** Throws the rejection when the operation could return more than `maxCost` objects. */
export function assertCostWithin(
  maxCost: number,
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Record<string, unknown> | null | undefined,
): void {
  const { cost, operation } = operationCost(schema, document, operationName, variables);
  if (cost > maxCost) {
    throw guardError(`Query cost ${cost} exceeds the maximum cost of ${maxCost}`, operation, 'cost', maxCost, cost);
  }
}
