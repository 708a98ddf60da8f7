import { Type, type TSchema } from 'typebox';
import { dialectOf, type Db } from '../db/database.ts';
import { SCORE_COLUMN, searchTextOf } from '../search/search-source.ts';
import { isEmptySearch } from '../search/web-search.ts';
import type { PageWindow } from '../pagination.ts';
import { decodeCursor, encodeCursor, type KeyKind } from './list-cursor.ts';
import { type Condition, type FieldRule, type ListGrammar } from './list-grammar.ts';
import type { ListQuery } from './list-query-parse.ts';
import { MATCHES_COLUMN, orderKeysOf, type ListStatements, type ListPlan, type OrderKey } from './list-sql.ts';

/** One page of a queried list, before it is presented. */
export interface QueriedPage<T> {
  items: T[];
  window: PageWindow;
  /** Absent with `count=none`. */
  total?: number;
  /** True when `total` is PostgreSQL's estimate (`count=estimated` above `COUNT_EXACT_LIMIT`). */
  totalEstimated?: boolean;
  hasNext: boolean;
  nextCursor: string | null;
}

/**
 * Reads one page of a list the grammar describes: its rows (right after the cursor's item when there
 * is one, else at the window's offset) and, beside them, the total the request's `count` asks for.
 * `hasNext` comes from the total when it is exact and no cursor is used (the seed's rule), else from
 * reading one row more than the page.
 */
export interface QueriedPageOptions {
  /** The column that breaks ties and ends every cursor (`id`). */
  idColumn?: string;
  /**
   * The exact total of `conditions` from counters the module maintains, without counting rows; or
   * undefined when its counters cannot answer them (the rows are counted then).
   */
  countedTotal?: (db: Db, conditions: readonly Condition[]) => Promise<number> | undefined;
}

export async function readQueriedPage<Row>(
  db: Db,
  grammar: ListGrammar,
  statements: ListStatements<Row>,
  query: ListQuery,
  window: PageWindow,
  options: QueriedPageOptions = {},
): Promise<QueriedPage<Row>> {
  const { idColumn = 'id', countedTotal } = options;
  const keys = orderKeysOf(query.sort, idColumn, query.idDirection);
  const position =
    query.cursor === undefined
      ? undefined
      : decodeCursor(query.cursor, query.fingerprint, kindsOf(grammar, keys, idColumn));
  const offset = position?.offset ?? window.offset;
  const pageWindow = position ? { page: Math.floor(offset / window.limit) + 1, limit: window.limit, offset } : window;
  const { search } = query;
  if (search && isEmptySearch(search)) {
    // A `q` of no word to find (only punctuation or stop words) matches nothing, on both databases alike.
    return {
      items: [],
      window: pageWindow,
      ...(query.count === 'none' ? {} : { total: 0 }),
      hasNext: false,
      nextCursor: null,
    };
  }
  const text = search && searchTextOf(search, dialectOf(db) === 'postgres');
  const relevance = keys[0]?.column === SCORE_COLUMN;
  const plan: ListPlan = {
    conditions: query.conditions,
    keys,
    after: position?.values,
    search: text,
    ...(relevance ? { rankCandidates: query.rankCandidates } : {}),
  };
  // A bounded relevance page may end before the matches do: whether there is more is read, not counted.
  const bounded = plan.rankCandidates !== undefined && plan.rankCandidates > 0 && text !== undefined;
  // PostgreSQL: how its candidates are found follows the planner's estimate of the matches (also the
  // estimated count's, asked once).
  const estimated =
    bounded && dialectOf(db) === 'postgres' ? await statements.estimate(db, plan, query.search) : undefined;
  if (estimated !== undefined) plan.sortsMatches = estimated <= plan.rankCandidates! * SORTED_MATCHES_UP_TO;
  const readsOneMore = position !== undefined || query.count !== 'exact' || bounded;
  const reading = statements
    .readPage(db, plan, { limit: window.limit + (readsOneMore ? 1 : 0), offset })
    .then((read) => (plan.sortsMatches ? withoutMatches(read) : { read, matches: undefined }));
  const [{ read: rows }, total] = await Promise.all([
    reading,
    // The counters count rows, not a search's matches.
    totalOf(db, statements, plan, query, search ? undefined : countedTotal, estimated, async () => {
      // The list ends on this page (no row beyond it, and the page is not past the end): its total is known.
      const { read, matches } = await reading;
      if (matches !== undefined) return matches;
      // A bounded page ends where its candidates end; the matches end there only if fewer were found.
      if (bounded && offset + read.length >= plan.rankCandidates!) return undefined;
      return read.length <= window.limit && (read.length > 0 || offset === 0) ? offset + read.length : undefined;
    }),
  ]);
  const items = rows.slice(0, window.limit);
  const hasNext = readsOneMore ? rows.length > window.limit : offset + window.limit < (total?.value ?? 0);
  return {
    items,
    window: pageWindow,
    ...(total ? { total: total.value, ...(total.estimated ? { totalEstimated: true } : {}) } : {}),
    hasNext,
    nextCursor: hasNext ? nextCursorOf(query.fingerprint, keys, items, offset) : null,
  };
}

/** A page whose candidates sorted every match carries their number on each row (list-sql.ts): taken off. */
function withoutMatches<Row>(read: Row[]): { read: Row[]; matches: number | undefined } {
  const matches = read.length > 0 ? Number((read[0] as Record<string, unknown>)[MATCHES_COLUMN]) : undefined;
  for (const row of read) delete (row as Record<string, unknown>)[MATCHES_COLUMN];
  return { read, matches };
}

/**
 * The cursor right after the last of `items` (read from `offset` in the order of `keys`), for a list
 * that has more; null when the page is empty. For a module that reads a page its own way.
 */
export function nextCursorOf(
  fingerprint: string,
  keys: readonly OrderKey[],
  items: readonly unknown[],
  offset: number,
): string | null {
  const last = items.at(-1) as Record<string, unknown> | undefined;
  if (!last) return null;
  return encodeCursor(fingerprint, {
    values: keys.map((key) => cursorValue(last[key.column])),
    offset: offset + items.length,
  });
}

/** A row's key value as the cursor keeps it (a boolean reads as 0/1 on SQLite, and is bound back so). */
const cursorValue = (value: unknown) => (typeof value === 'bigint' ? Number(value) : (value ?? null)) as never;

function kindsOf(grammar: ListGrammar, keys: ReturnType<typeof orderKeysOf>, idColumn: string): KeyKind[] {
  const rules = Object.values<FieldRule>(grammar.fields);
  return keys.map((key) => {
    if (key.column === idColumn) return { type: 'integer', nullable: false };
    if (key.column === SCORE_COLUMN) return { type: 'number', nullable: false };
    const rule = rules.find((r) => r.column === key.column)!;
    return { type: rule.type, nullable: rule.nullable === true };
  });
}

/**
 * PostgreSQL, a bounded relevance page (DECISIONS §14 "Cost"): up to this many times `rankCandidates`
 * expected matches, the candidates are the lowest ids of every match sorted; above, the ids are walked in
 * order until enough match. Either way the same candidates: the walk reads about `rankCandidates` ÷ the
 * filter's share of rows, the sort every match, so the walk wins for a common word and loses badly for a
 * rare one (a phrase, which the planner estimates as its words together, would walk the whole table).
 */
export const SORTED_MATCHES_UP_TO = 20;

/**
 * With `count=estimated`, PostgreSQL's planner's estimate is asked first (it plans the statement and
 * reads no row). Above ESTIMATE_TRUSTED_ABOVE × `COUNT_EXACT_LIMIT` it is the answer, unless the page
 * itself shows where the list ends: a capped count goes through the matching rows of the filter's
 * index, and a trigram index's bitmap cannot stop at the cap (it collects every candidate first, so a
 * common word over a large table is slow). Below, the rows are counted
 * up to the limit plus one: exact when that many are not there.
 */
export const ESTIMATE_TRUSTED_ABOVE = 2;

async function totalOf<Row>(
  db: Db,
  statements: ListStatements<Row>,
  plan: ListPlan,
  query: ListQuery,
  countedTotal: QueriedPageOptions['countedTotal'],
  known: number | undefined,
  endOfList: () => Promise<number | undefined>,
): Promise<{ value: number; estimated: boolean } | undefined> {
  if (query.count === 'none') return undefined;
  // Maintained counters are exact and cost a few rows: the answer to `exact` and `estimated` alike.
  const counted = countedTotal?.(db, plan.conditions);
  if (counted !== undefined) return { value: await counted, estimated: false };
  if (plan.sortsMatches) {
    // The page's candidates sorted every match, and counted them on the way.
    const matches = await endOfList();
    if (matches !== undefined) return { value: matches, estimated: false };
  }
  if (query.count === 'exact') return { value: await statements.count(db, plan), estimated: false };
  const estimate = known ?? (await statements.estimate(db, plan, query.search));
  // SQLite has no planner's estimate (a search without other filters has its vocabulary's): it counts,
  // unless the page ends the list (its one connection reads the page first anyway); all at once, as a
  // capped count first would read the first matches twice.
  if (estimate === undefined)
    return { value: (await endOfList()) ?? (await statements.count(db, plan)), estimated: false };
  if (estimate > query.countExactLimit * ESTIMATE_TRUSTED_ABOVE) {
    const end = await endOfList();
    return end === undefined ? { value: estimate, estimated: true } : { value: end, estimated: false };
  }
  const capped = await statements.countUpTo(db, plan, query.countExactLimit + 1);
  if (capped <= query.countExactLimit) return { value: capped, estimated: false };
  return { value: Math.max(estimate, capped), estimated: true };
}

/** `pagination` of a queried list: the seed's fields, `total` and `totalPages` unless `count=none`, and the cursor. */
export const QueriedPagination = Type.Object(
  {
    page: Type.Integer(),
    limit: Type.Integer(),
    total: Type.Optional(Type.Integer({ description: 'Absent with count=none' })),
    totalPages: Type.Optional(Type.Integer({ description: 'Absent with count=none' })),
    totalEstimated: Type.Optional(Type.Boolean({ description: 'Present (true) when total is an estimate' })),
    hasNext: Type.Boolean(),
    hasPrev: Type.Boolean(),
    nextCursor: Type.Union([Type.String(), Type.Null()], {
      description: 'Send as `cursor` (with the same filters and sort) for the next page; null on the last page',
    }),
  },
  { title: 'QueriedPagination' },
);

export function queriedPageOf<T extends TSchema>(item: T, name: string) {
  return Type.Object({ data: Type.Array(item), pagination: QueriedPagination }, { title: name });
}

export function queriedPaginationOf(page: QueriedPage<unknown>) {
  const { page: number, limit } = page.window;
  return {
    page: number,
    limit,
    ...(page.total === undefined
      ? {}
      : {
          total: page.total,
          totalPages: Math.ceil(page.total / limit),
          ...(page.totalEstimated ? { totalEstimated: true } : {}),
        }),
    hasNext: page.hasNext,
    hasPrev: number > 1,
    nextCursor: page.nextCursor,
  };
}
