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
import { AGGREGATE_LIMITS, AGGREGATE_REQUEST_WEIGHT, FACET_WEIGHT } from '../core/querying/aggregate-grammar.ts';
import { guardError } from './document-limits.ts';

/** Every list field returns at most this many items (DECISIONS §6). */
export const MAX_LIST_LIMIT = 100;

/**
 * Fields that read far more rows than the objects they return (DECISIONS §14): each costs its REST
 * route's weight in plain reads (`reads`, each worth the charge's unit of objects), plus its groups,
 * `limit` of them, up to `maxLimit` (not the lists' 100). So an aggregate weighs in the cost limit and in
 * the rate-limit charge what `GET /orders/aggregate` weighs, and many in one document are refused.
 */
const HEAVY_FIELDS: Readonly<Record<string, { reads: number; maxLimit: number }>> = {
  'Query.ordersAggregate': { reads: AGGREGATE_REQUEST_WEIGHT, maxLimit: AGGREGATE_LIMITS.maxLimit },
  'Query.productsAggregate': { reads: AGGREGATE_REQUEST_WEIGHT, maxLimit: AGGREGATE_LIMITS.maxLimit },
};

/**
 * A list given a `search` ranks every match before it pages them, as a facet counts every match: it
 * costs that many plain reads more than the same list without one.
 */
export const SEARCHED_LIST_READS = FACET_WEIGHT;

/** How many objects a plain read is worth, when the caller does not say (RATE_LIMIT_GRAPHQL_COST_UNIT's default). */
const DEFAULT_READ_COST = 100;

/** The operation a request runs: the named one, or the document's first. */
function findOperation(
  document: DocumentNode,
  operationName: string | null | undefined,
): OperationDefinitionNode | undefined {
  const operations = document.definitions.filter(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  );
  return operationName ? operations.find((o) => o.name?.value === operationName) : operations[0];
}

/**
 * Costs that no variable changes, by operation. A compiled operation (compiled-operations.ts) hands the
 * same DocumentNode on every run, so a repeated operation is costed once; a WeakMap lets an operation go
 * with the entry that holds its document. The schema is the endpoint's one schema.
 */
const fixedCosts = new WeakMap<OperationDefinitionNode, OperationCost>();

/**
 * The cost of an operation is the largest number of objects it can return:
 *   cost(selection set) = Σ cost(field)
 *   cost(field)         = 0 for a scalar field
 *                       = n × (1 + cost(its selection set)) for an object or list field,
 *                         n = 1 for an object, n = the field's effective `limit` for a list
 *                         (the argument or variable, else the schema default, clamped to 1..100);
 *                         a list without a `limit` of its own (a connection's `nodes`) takes its
 *                         connection field's, else 100.
 * So `{ users(limit: 10) { posts { comments { author { name } } } } }` costs
 * 10 × (1 + 20 × (1 + 20 × (1 + 1))) = 8,210. Introspection fields cost nothing.
 * Besides: a list without a `limit` whose items a list argument names (`highlights(fields: [...])`)
 * holds that many; a field of HEAVY_FIELDS adds its `reads` × `readCost` (its groups counted up to its
 * own `maxLimit`); a list field given a `search` adds SEARCHED_LIST_READS × `readCost`. `readCost` is
 * the rate limit's unit (RATE_LIMIT_GRAPHQL_COST_UNIT), so one such read is charged as one request.
 * Each fragment's cost is computed once and reused at every spread (its type condition fixes its
 * type), so the time is linear in the document however often fragments spread each other.
 */
export function operationCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Record<string, unknown> | null | undefined,
  readCost = DEFAULT_READ_COST,
): OperationCost {
  const operation = findOperation(document, operationName);
  if (!operation) return { cost: 0, operation, readsVariables: false };
  const fixed = fixedCosts.get(operation);
  if (fixed) return fixed;
  const computed = computeCost(schema, document, operation, variables, readCost);
  if (!computed.readsVariables) fixedCosts.set(operation, computed);
  return computed;
}

function computeCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown> | null | undefined,
  readCost: number,
): OperationCost {
  const root = schema.getRootType(operation.operation);
  const fragments = new Map(
    document.definitions
      .filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION)
      .map((d) => [d.name.value, d]),
  );

  let readsVariables = false;
  function limitOf(field: FieldNode, definition: GraphQLField<unknown, unknown>, max = MAX_LIST_LIMIT): number {
    const argument = field.arguments?.find((a) => a.name.value === 'limit');
    let value: unknown = undefined;
    if (argument?.value.kind === Kind.INT) value = Number(argument.value.value);
    else if (argument?.value.kind === Kind.VARIABLE) {
      readsVariables = true;
      value = variables?.[argument.value.name.value];
    }
    if (!Number.isInteger(value)) value = definition.args.find((a) => a.name === 'limit')?.defaultValue;
    if (!Number.isInteger(value)) return max;
    return Math.min(max, Math.max(1, value as number));
  }

  /** How many items a list argument (`fields: [...]`) names, literal or variable; undefined when none is given. */
  function namedItemsOf(field: FieldNode): number | undefined {
    let most: number | undefined;
    for (const argument of field.arguments ?? []) {
      let length: number | undefined;
      if (argument.value.kind === Kind.LIST) length = argument.value.values.length;
      else if (argument.value.kind === Kind.VARIABLE) {
        readsVariables = true;
        const value = variables?.[argument.value.name.value];
        if (Array.isArray(value)) length = value.length;
      }
      if (length !== undefined) most = Math.max(most ?? 0, length);
    }
    return most;
  }

  /** Whether the field is given a `search` (a literal, or a variable holding one). */
  function searched(field: FieldNode): boolean {
    const argument = field.arguments?.find((a) => a.name.value === 'search');
    if (!argument || argument.value.kind === Kind.NULL) return false;
    if (argument.value.kind !== Kind.VARIABLE) return true;
    readsVariables = true;
    const value = variables?.[argument.value.name.value];
    return value !== undefined && value !== null;
  }

  const fragmentCosts = new Map<string, number>();
  const visiting = new Set<string>();

  function fragmentCost(name: string, type: GraphQLNamedType): number {
    const known = fragmentCosts.get(name);
    if (known !== undefined) return known;
    const definition = fragments.get(name);
    if (!definition || visiting.has(name)) return 0; // a cycle is graphql's own validation error
    visiting.add(name);
    const cost = costOf(definition.selectionSet, schema.getType(definition.typeCondition.name.value) ?? type);
    visiting.delete(name);
    fragmentCosts.set(name, cost);
    return cost;
  }

  /** `page`: the `limit` of the connection field whose selection this is (its `nodes` hold that many). */
  function costOf(set: SelectionSetNode, type: GraphQLNamedType, page?: number): number {
    let total = 0;
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        if (selection.name.value.startsWith('__') || !isObjectType(type)) continue;
        const definition = type.getFields()[selection.name.value];
        if (!definition || !selection.selectionSet) continue;
        const fieldType = getNamedType(definition.type);
        if (!isCompositeType(fieldType)) continue;
        const paged = definition.args.some((a) => a.name === 'limit');
        const heavy = HEAVY_FIELDS[`${type.name}.${definition.name}`];
        if (heavy) total += heavy.reads * readCost;
        else if (searched(selection)) total += SEARCHED_LIST_READS * readCost;
        if (getNullableType(definition.type) instanceof GraphQLList) {
          const n = paged ? limitOf(selection, definition) : (page ?? namedItemsOf(selection) ?? MAX_LIST_LIMIT);
          total += n * (1 + costOf(selection.selectionSet, fieldType));
        } else {
          // A connection (`usersConnection(limit: 10) { nodes { ... } }`): one object, its nodes `limit` many
          // (an aggregate's `data`: its groups, `limit` many).
          const nodes = paged ? limitOf(selection, definition, heavy?.maxLimit) : undefined;
          total += 1 + costOf(selection.selectionSet, fieldType, nodes);
        }
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const narrowed = selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : type;
        total += costOf(selection.selectionSet, narrowed ?? type, page);
      } else {
        total += fragmentCost(selection.name.value, type);
      }
    }
    return Math.min(total, Number.MAX_SAFE_INTEGER);
  }

  const cost = root ? costOf(operation.selectionSet, root) : 0;
  return { cost, operation, readsVariables };
}

export interface OperationCost {
  cost: number;
  operation: OperationDefinitionNode | undefined;
  /** The cost depends on a variable (a `limit: $n`): it is computed again for every request. */
  readsVariables: boolean;
}

/** Throws the rejection when the operation could return more than `maxCost` objects; else returns its cost. */
export function assertCostWithin(
  maxCost: number,
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Record<string, unknown> | null | undefined,
  readCost = DEFAULT_READ_COST,
): number {
  const { cost, operation } = operationCost(schema, document, operationName, variables, readCost);
  if (cost > maxCost) {
    throw guardError(`Query cost ${cost} exceeds the maximum cost of ${maxCost}`, operation, 'cost', maxCost, cost);
  }
  return cost;
}
