import {
  getNamedType,
  isObjectType,
  type FieldNode,
  type GraphQLResolveInfo,
  type GraphQLSchema,
  type GraphQLType,
} from 'graphql';
import type { LoaderQuery } from '../core/resolving/loaders.ts';
import { requestedFields, subfieldNodes } from '../core/resolving/requested-fields.ts';

type Loader = (queries: LoaderQuery<unknown>[], context: object) => Promise<unknown[]>;
type FieldResolver = (
  parent: unknown,
  params: Record<string, unknown>,
  context: object,
  info: GraphQLResolveInfo,
) => Promise<unknown>;
type Relations = ReadonlyMap<string, ReadonlyMap<string, Loader>>;

interface Batch {
  queries: LoaderQuery<unknown>[];
  settle: { resolve(value: unknown): void; reject(error: unknown): void }[];
  info: GraphQLResolveInfo;
}

const NO_ARGS: Record<string, unknown> = Object.freeze({});

/**
 * Turns loaders into field resolvers that batch as Mercurius' `loaders` option would (it is not used):
 * every call of one field made in the same tick of one request goes to a single loader call. Mercurius
 * keys each call by JSON of the parent object and the arguments (for its per-request cache), a large
 * share of a nested query's CPU (bench/RESULTS.md, "Changes", 3); our loaders deduplicate the
 * ids themselves, so no key is needed.
 *
 * The relations of a type listed in `readWithList` get no resolver: a batched field that returns
 * objects of that type reads the relations its query selects for all of them at once, right after
 * loading them, and sets them on the objects, where graphql-jit reads them as plain properties. A
 * resolver would be called once per object (every comment of bench W3), and graphql-jit builds a
 * resolve info, its path and three closures for each call, then awaits a promise per object: memory
 * and CPU of every nested answer.
 * `assertReadWithList` checks at start-up that every field returning such a type is batched.
 *
 * A relation of such a type that takes arguments (`Comment.likes(limit, offset)`) cannot be read with
 * the list: two aliases may ask for different pages, and the object has one property per field name.
 * Given the schema, such a relation keeps a batched resolver of its own (one loader call per level,
 * a resolver call per object), which only queries selecting it pay for.
 */
export function batchedResolvers(
  batched: Record<string, Record<string, unknown>>,
  readWithList: ReadonlySet<string> = new Set(),
  schema?: GraphQLSchema,
): Record<string, Record<string, FieldResolver>> {
  const relations = new Map<string, Map<string, Loader>>();
  for (const type of readWithList) {
    const entries = Object.entries(batched[type] ?? {}) as [string, Loader][];
    relations.set(type, new Map(entries.filter(([field]) => !takesArguments(schema, type, field))));
  }
  const resolvers: Record<string, Record<string, FieldResolver>> = {};
  for (const [type, fields] of Object.entries(batched)) {
    for (const [field, loader] of Object.entries(fields)) {
      if (readWithList.has(type) && !takesArguments(schema, type, field)) continue;
      resolvers[type] ??= {};
      resolvers[type][field] = batchedField(loader as Loader, relations);
    }
  }
  return resolvers;
}

/** Whether the schema's `type.field` declares arguments (false without a schema). */
function takesArguments(schema: GraphQLSchema | undefined, type: string, field: string): boolean {
  const object = schema?.getType(type);
  return isObjectType(object) && (object.getFields()[field]?.args.length ?? 0) > 0;
}

function batchedField(load: Loader, relations: Relations): FieldResolver {
  // Per request, the open batch of each group: one group for the field, except where the objects' relations
  // are read with the list from the batch's selection, which two aliases may differ in: a group per field node.
  const pending = new WeakMap<object, Map<object, Batch>>();
  const everyNode = {};
  const groupOf = (info: GraphQLResolveInfo): object =>
    relations.has(getNamedType(info.returnType).name) ? info.fieldNodes : everyNode;
  // Every parent of one level shares the field's nodes: its selection is read once per node list.
  const selections = new WeakMap<object, Set<string>>();
  const fieldsOf = (info: GraphQLResolveInfo): Set<string> => {
    let fields = selections.get(info.fieldNodes);
    if (!fields) selections.set(info.fieldNodes, (fields = requestedFields(info)));
    return fields;
  };
  const withRelations = relationReader(relations);
  return (obj, params, context, info) =>
    new Promise((resolve, reject) => {
      let batches = pending.get(context);
      if (!batches) pending.set(context, (batches = new Map()));
      const group = groupOf(info);
      let batch = batches.get(group);
      if (!batch) {
        const started: Batch = { queries: [], settle: [], info };
        batch = started;
        batches.set(group, started);
        const open = batches;
        // After the current level's resolvers have all run (the moment Mercurius' loaders flush too).
        process.nextTick(() => {
          open.delete(group);
          flush(load, started, context, withRelations);
        });
      }
      batch.queries.push({ obj, params, fields: fieldsOf(info) });
      batch.settle.push({ resolve, reject });
    });
}

type RelationReader = (results: unknown[], info: GraphQLResolveInfo, context: object) => Promise<void> | undefined;

function flush(load: Loader, batch: Batch, context: object, withRelations: RelationReader): void {
  load(batch.queries, context)
    .then(async (results) => {
      await withRelations(results, batch.info, context);
      return results;
    })
    .then(
      (results) => batch.settle.forEach((waiter, i) => waiter.resolve(results[i])),
      (error: unknown) => batch.settle.forEach((waiter) => waiter.reject(error)),
    );
}

interface Plan {
  /** The relation fields the query selects under the batched field, with the subfields each selects. */
  reads: { field: string; load: Loader; fields: ReadonlySet<string> }[];
}

/** Reads the selected relations of the objects a batched field returned, when their type is read with lists. */
function relationReader(relations: Relations): RelationReader {
  if (relations.size === 0) return () => undefined;
  const plans = new WeakMap<object, Plan | null>();
  const planOf = (info: GraphQLResolveInfo): Plan | null => {
    let plan = plans.get(info.fieldNodes);
    if (plan === undefined) {
      const loaders = relations.get(getNamedType(info.returnType).name);
      const reads: Plan['reads'] = [];
      for (const [field, load] of loaders ?? []) {
        const nodes: FieldNode[] = subfieldNodes(info, field);
        if (nodes.length > 0)
          reads.push({ field, load, fields: requestedFields({ fieldNodes: nodes, fragments: info.fragments }) });
      }
      plans.set(info.fieldNodes, (plan = reads.length > 0 ? { reads } : null));
    }
    return plan;
  };
  return (results, info, context) => {
    const plan = planOf(info);
    if (!plan) return undefined;
    const objects: Record<string, unknown>[] = [];
    for (const result of results) {
      if (Array.isArray(result)) objects.push(...(result as Record<string, unknown>[]));
      else if (result !== null && result !== undefined) objects.push(result as Record<string, unknown>);
    }
    if (objects.length === 0) return undefined;
    return Promise.all(
      plan.reads.map(async ({ field, load, fields }) => {
        const values = await load(
          objects.map((obj) => ({ obj, params: NO_ARGS, fields })),
          context,
        );
        objects.forEach((obj, i) => (obj[field] = values[i]));
      }),
    ).then(() => undefined);
  };
}

/**
 * A type read with lists must be reached only through batched fields (or its relations would be
 * missing), and its relations return no type read with lists. A relation with arguments is resolved
 * by its own batched resolver (see `batchedResolvers`), not read with the list.
 */
export function assertReadWithList(
  schema: GraphQLSchema,
  batched: Record<string, Record<string, unknown>>,
  readWithList: ReadonlySet<string>,
): void {
  for (const type of readWithList) {
    const object = schema.getType(type);
    if (!object || !('getFields' in object))
      throw new Error(`readWithList: ${type} is not an object type of the schema`);
    for (const field of Object.keys(batched[type] ?? {})) {
      const definition = object.getFields()[field];
      if (!definition) throw new Error(`readWithList: ${type}.${field} is not in the schema`);
      if (readWithList.has(getNamedType(definition.type).name))
        throw new Error(`readWithList: ${type}.${field} returns a type read with lists`);
    }
    for (const parent of Object.values(schema.getTypeMap())) {
      if (parent.name.startsWith('__') || !('getFields' in parent)) continue;
      for (const [name, definition] of Object.entries(parent.getFields())) {
        if (getNamedType(definition.type as GraphQLType).name !== type) continue;
        if (!batched[parent.name]?.[name] || readWithList.has(parent.name)) {
          throw new Error(
            `readWithList: ${parent.name}.${name} returns ${type} but is not a batched field, so ${type}'s relations would not be read`,
          );
        }
      }
    }
  }
}
