import type { GraphQLResolveInfo } from 'graphql';
import type { LoaderQuery } from '../core/graphql/loaders.ts';
import { requestedFields } from './requested-fields.ts';

type Loader = (queries: LoaderQuery<unknown>[], context: object) => Promise<unknown[]>;
type FieldResolver = (parent: unknown, params: Record<string, unknown>, context: object, info: GraphQLResolveInfo) => Promise<unknown>;

interface Batch {
  queries: LoaderQuery<unknown>[];
  settle: { resolve(value: unknown): void; reject(error: unknown): void }[];
}

/**
 * Turns loaders into field resolvers that batch like Mercurius' loaders: every call of one field made
 * in the same tick of one request goes to a single loader call. Mercurius keys each call by JSON of
 * the parent object and the arguments (for its per-request cache), which cost about 15% of the CPU
 * of a nested query (bench/RESULTS.md); our loaders deduplicate the ids themselves, so no key is needed.
 */
export function batchedResolvers(batched: Record<string, Record<string, unknown>>): Record<string, Record<string, FieldResolver>> {
  const resolvers: Record<string, Record<string, FieldResolver>> = {};
  for (const [type, fields] of Object.entries(batched)) {
    resolvers[type] = {};
    for (const [field, loader] of Object.entries(fields)) {
      resolvers[type][field] = batchedField(loader as Loader);
    }
  }
  return resolvers;
}

function batchedField(load: Loader): FieldResolver {
  const pending = new WeakMap<object, Batch>();
  // Every parent of one level shares the field's nodes: its selection is read once per node list.
  const selections = new WeakMap<object, Set<string>>();
  const fieldsOf = (info: GraphQLResolveInfo): Set<string> => {
    let fields = selections.get(info.fieldNodes);
    if (!fields) selections.set(info.fieldNodes, (fields = requestedFields(info)));
    return fields;
  };
  return (obj, params, context, info) =>
    new Promise((resolve, reject) => {
      let batch = pending.get(context);
      if (!batch) {
        const started: Batch = { queries: [], settle: [] };
        batch = started;
        pending.set(context, started);
        // The same moment Mercurius flushes: after the current level's resolvers have all run.
        process.nextTick(() => {
          pending.delete(context);
          flush(load, started, context);
        });
      }
      batch.queries.push({ obj, params, fields: fieldsOf(info) });
      batch.settle.push({ resolve, reject });
    });
}

function flush(load: Loader, batch: Batch, context: object): void {
  load(batch.queries, context).then(
    (results) => batch.settle.forEach((waiter, i) => waiter.resolve(results[i])),
    (error: unknown) => batch.settle.forEach((waiter) => waiter.reject(error)),
  );
}
