import { pageOf, toId, type GraphQLContext, type ListArgs } from './context.ts';

/** One batched call of a loader: the parent object, the field's arguments and the subfields it selects. */
export interface LoaderQuery<P, A = Record<string, unknown>> {
  obj: P;
  params: A;
  fields: ReadonlySet<string>;
}

/** The subfields any query of a batch selects: the loader reads the columns of all of them. */
function fieldsOfAll(queries: readonly LoaderQuery<unknown, unknown>[]): Set<string> {
  const fields = new Set<string>();
  for (const query of queries) for (const field of query.fields) fields.add(field);
  return fields;
}

type Page = ReturnType<typeof pageOf>;

/**
 * A loader for a list relation (`User.posts`, `Post.comments`): all parents of one level are
 * answered by one service call per distinct page (normally exactly one), never one per parent.
 */
export function listLoader<P, T>(
  keyOf: (parent: P) => number,
  load: (keys: number[], page: Page, fields: ReadonlySet<string>) => Promise<Map<number, T[]>>,
) {
  return async (queries: LoaderQuery<P, ListArgs>[]): Promise<T[][]> => {
    const groups = new Map<string, { page: Page; indexes: number[] }>();
    queries.forEach((query, index) => {
      const page = pageOf(query.params);
      const key = `${page.limit ?? ''}:${page.offset ?? ''}`;
      const group = groups.get(key) ?? { page, indexes: [] };
      group.indexes.push(index);
      groups.set(key, group);
    });
    const results: T[][] = new Array(queries.length);
    await Promise.all(
      [...groups.values()].map(async ({ page, indexes }) => {
        const keys = [...new Set(indexes.map((i) => keyOf(queries[i]!.obj)))];
        const byKey = await load(keys, page, fieldsOfAll(indexes.map((i) => queries[i]!)));
        for (const i of indexes) results[i] = byKey.get(keyOf(queries[i]!.obj)) ?? [];
      }),
    );
    return results;
  };
}

/** A loader for a to-one relation (`Post.author`, `Comment.post`): one `find...ByIds` call per level. */
export function byIdLoader<P, T extends { id: number }>(
  keyOf: (parent: P) => number,
  load: (ids: number[], fields: ReadonlySet<string>, context: GraphQLContext) => Promise<T[]>,
) {
  // The context carries the caller: what a related object shows may depend on who asks (a user's email).
  return async (queries: LoaderQuery<P>[], context: GraphQLContext): Promise<(T | null)[]> => {
    const rows = await load([...new Set(queries.map((query) => keyOf(query.obj)))], fieldsOfAll(queries), context);
    const byId = new Map(rows.map((row) => [row.id, row]));
    return queries.map((query) => byId.get(keyOf(query.obj)) ?? null);
  };
}

/**
 * A loader for a root field naming its object by an `id` argument (`comment(id)`): every call of one
 * level in one `find...ByIds` call; null for an id that names nothing (a malformed one included).
 */
export function byIdArgumentLoader<T extends { id: number }>(
  load: (ids: number[], fields: ReadonlySet<string>, context: GraphQLContext) => Promise<T[]>,
) {
  return async (queries: LoaderQuery<unknown, { id: string | number }>[], context: GraphQLContext) => {
    const ids = queries.map((query) => toId(query.params.id));
    const rows = await load([...new Set(ids)], fieldsOfAll(queries), context);
    const byId = new Map(rows.map((row) => [row.id, row]));
    return ids.map((id) => byId.get(id) ?? null);
  };
}
