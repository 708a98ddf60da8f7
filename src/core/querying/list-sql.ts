import { CompiledQuery, sql, type AliasedExpression, type Kysely, type RawBuilder } from 'kysely';
import { dialectOf, type Db } from '../db/database.ts';
import { readRows } from '../db/fast-read.ts';
import { PLANNED_PER_VALUES } from '../db/pg-named-statements.ts';
import type { SortDirection } from '../db/sort-direction.ts';
import { shapedStatement, type Bound } from '../db/statement-cache.ts';
import { SCORE_COLUMN, searchedDocuments, searchedRows, type SearchSource } from '../search/search-source.ts';
import { vocabularyEstimate } from '../search/vocabulary-estimate.ts';
import type { SearchExpression } from '../search/web-search.ts';
import type { Condition, FieldRule, ListGrammar, SortKey } from './list-grammar.ts';
import { keysetOf, orderOf, type OrderKey } from './list-keyset.ts';
import { paramsOf, shapeOf, whereOf, type BoundListParams, type ListPlan, type Shape } from './list-shape.ts';
export type { OrderKey } from './list-keyset.ts';
export type { ListPlan } from './list-shape.ts';

/**
 * The SQL of a queried list, over the one table its module names: conditions, order and keyset, all
 * from the grammar's columns, every value bound. Each shape (which conditions, operators, `in`
 * lengths, sort, whether a cursor and which of its values are null) is compiled once
 * (`shapedStatement`, from the plan's shape: list-shape.ts); the values only fill its parameters.
 */

export function orderKeysOf(sort: readonly SortKey[], idColumn: string, idDirection: SortDirection): OrderKey[] {
  const keys: OrderKey[] = [];
  for (const { column, direction, nullable } of sort) {
    keys.push({ column, direction, nullable });
    if (column === idColumn) return keys; // unique: nothing after it can break a tie
  }
  keys.push({ column: idColumn, direction: idDirection, nullable: false });
  return keys;
}

/** The column of a page whose candidates sorted every match: how many matched (list-page.ts takes it off). */
export const MATCHES_COLUMN = 'matches_total';

type AnyDb = Kysely<Record<string, Record<string, unknown>>>; // any table: its module passes its name in

const splitsAtNulls = (plan: ListPlan) => plan.after !== undefined && plan.keys[0]!.nullable && plan.after[0] !== null;

export interface ListStatements<Row> {
  /** One page: `limit` rows from `offset`, or right after `plan.after` when set (no offset then). */
  readPage(db: Db, plan: ListPlan, window: { limit: number; offset: number }): Promise<Row[]>;
  count(db: Db, plan: ListPlan): Promise<number>; // the exact number of rows the conditions match
  /** The number of matching rows, counting no further than `cap`. */
  countUpTo(db: Db, plan: ListPlan, cap: number): Promise<number>;
  /**
   * PostgreSQL's planner's estimate of the matching rows; on SQLite, a search's (without other
   * conditions) from its vocabulary (vocabulary-estimate.ts); else undefined.
   */
  estimate(db: Db, plan: ListPlan, expression?: SearchExpression): Promise<number | undefined>;
}

/**
 * The columns a list's statements may name: every column of its grammar's fields, and the module's
 * own (`id`, a scope such as `post_id`). A closed set declared in code (DECISIONS §13).
 */
export function listColumnsOf(grammars: readonly ListGrammar[], ...own: readonly string[]): readonly string[] {
  const columns = new Set(own);
  for (const grammar of grammars) {
    for (const rule of Object.values<FieldRule>(grammar.fields)) {
      columns.add(rule.column);
      for (const column of rule.anyOfColumns ?? []) columns.add(column);
    }
  }
  return [...columns];
}

/**
 * The statements of a list over `table` (named by its module), naming only `columns` (listColumnsOf):
 * a plan with any other column in a condition or a key is refused before any SQL is built. With
 * `search` (core/search), a plan's full-text search reads the matching rows and their `search_score`.
 */
export function createListStatements<Row>(
  table: string,
  columns: readonly string[],
  search?: SearchSource,
): ListStatements<Row> {
  const known = new Set(search ? [...columns, SCORE_COLUMN] : columns);
  const checked = (plan: ListPlan): ListPlan => {
    const named = [
      ...plan.conditions.flatMap((condition) => condition.anyOfColumns ?? [condition.column]),
      ...plan.keys.map((key) => key.column),
    ];
    const unknown = named.find((column) => !known.has(column));
    if (unknown !== undefined)
      throw new Error(`list of ${table}: column "${unknown}" is not one of its declared columns`);
    if (plan.search !== undefined && !search) throw new Error(`list of ${table}: no full-text search declared`);
    return plan;
  };
  const filtered = (db: Db, shape: Shape, params: BoundListParams, keyset = true) => {
    const searched = shape.searched && search ? searchedRows(search, shape.postgres, params.q!) : undefined;
    let query = (db as unknown as AnyDb).selectFrom((searched ?? table) as string); // a table, or one aliased as it
    for (const part of whereOf(shape, params, keyset)) query = query.where(part);
    return query;
  };
  /**
   * A bounded relevance page's rows: the first `candidates` matches the database finds that pass the
   * conditions (each ranked: the rank is computed for these rows only), then the cursor's keyset over
   * them. The candidates are the same for every page of one query (the inner statement does not depend
   * on the cursor), so pages by cursor neither repeat nor skip an item.
   */
  /** PostgreSQL, a bounded search without other filters: candidates from the documents alone (`pageRowsOf`). */
  const documentsOnly = (shape: Shape) => shape.postgres && shape.bounded && shape.conditions.length === 0;
  const candidatesOf = (db: Db, shape: Shape, params: BoundListParams) => {
    let first = (
      documentsOnly(shape) && search
        ? (db as unknown as AnyDb).selectFrom(searchedDocuments(search, params.q!))
        : filtered(db, shape, params, false)
    ).selectAll();
    // PostgreSQL: the lowest ids, whatever plan each page's statement gets. A common word's plan walks the
    // ids in order until enough match; for a filter expected to match few, `id + 0` (the same order) rules
    // that walk out: a phrase or two words the planner overestimates would otherwise walk every row. Each
    // is its own statement, so a generic plan of one never serves the other. SQLite's FTS5 reads its
    // matches by rowid already.
    if (shape.postgres) first = first.orderBy(shape.sortsMatches ? sql`${sql.ref('id')} + 0` : sql.ref('id'));
    // Sorting reads every match: their number comes with the candidates, the list's exact total.
    if (shape.sortsMatches) first = first.select(sql<number>`count(*) over ()`.as(MATCHES_COLUMN));
    const candidates = first.limit(params.candidates as Bound<number>).as(table);
    let query = (db as unknown as AnyDb).selectFrom(candidates);
    if (shape.afterNull) for (const part of keysetOf(shape.keys, shape.afterNull, params)) query = query.where(part);
    return query;
  };
  /** The statement's text ends with the mark when its plan should follow its values. */
  const marked = <Q extends { modifyEnd(modifier: RawBuilder<unknown>): Q }>(shape: Shape, query: Q): Q =>
    // eslint-disable-next-line no-restricted-syntax -- a comment constant of pg-named-statements.ts, no client text
    shape.perValues ? query.modifyEnd(sql.raw(PLANNED_PER_VALUES)) : query;
  /**
   * The page's rows of the table, by id, for a page chosen among candidates of the documents alone: a
   * common word's candidates never read the table, and a rarer word's matches are not each joined to it.
   */
  const pageRowsOf = (db: Db, shape: Shape, chosen: AliasedExpression<unknown, 'page'>) => {
    let query = (db as unknown as AnyDb)
      .selectFrom(chosen)
      .innerJoin(table, `${table}.id`, 'page.id')
      .selectAll(table)
      .select(sql.ref(`page.${SCORE_COLUMN}`).as(SCORE_COLUMN));
    if (shape.sortsMatches) query = query.select(sql.ref(`page.${MATCHES_COLUMN}`).as(MATCHES_COLUMN));
    for (const [column, modifiers] of orderOf(shape.keys.map((key) => ({ ...key, column: `page.${key.column}` }))))
      query = query.orderBy(column, modifiers);
    return query;
  };
  const page = shapedStatement({
    build: (db, shape: Shape, params: BoundListParams) => {
      let query = (shape.bounded ? candidatesOf(db, shape, params) : filtered(db, shape, params)).selectAll();
      for (const [column, modifiers] of orderOf(shape.keys)) query = query.orderBy(column, modifiers);
      query = query.limit(params.limit as Bound<number>);
      if (params.offset !== undefined) query = query.offset(params.offset as Bound<number>);
      return marked(shape, documentsOnly(shape) ? pageRowsOf(db, shape, query.as('page')) : query);
    },
  });

  const count = shapedStatement({
    build: (db, shape: Shape, params: BoundListParams) =>
      marked(
        shape,
        filtered(db, shape, params).select((eb) => eb.fn.countAll<number | string>().as('count')),
      ),
  });
  const countUpTo = shapedStatement({
    build: (db, shape: Shape, params: BoundListParams) =>
      marked(
        shape,
        (db as unknown as AnyDb)
          .selectFrom(
            filtered(db, shape, params)
              .select(sql.lit(1).as('one'))
              .limit(params.limit as Bound<number>)
              .as('capped'),
          )
          .select((eb) => eb.fn.countAll<number | string>().as('count')),
      ),
  });
  const rows = shapedStatement({
    build: (db, shape: Shape, params: BoundListParams) => filtered(db, shape, params).selectAll(),
  });

  const readPageAsOne = (db: Db, plan: ListPlan, window: { limit: number; offset: number }) => {
    checked(plan);
    const params = paramsOf(plan, { limit: window.limit, ...(plan.after ? {} : { offset: window.offset }) });
    return readRows(db, page(db, shapeOf(db, plan), params)) as Promise<Row[]>;
  };

  return {
    async readPage(db, plan, window) {
      if (!splitsAtNulls(plan)) return readPageAsOne(db, plan, window);
      // A cursor on a nullable first key with a value (`sort=age`, at 52): what follows is the rest of
      // the values from 52 on, then every null. As one condition (`age > 52 or ... or age is null`) no
      // index range can start at 52, and PostgreSQL walked every row before it. As two ranges of the
      // key's index, read one after the other, each starts where it should; the second only runs for
      // the page where the values end.
      const [first, ...rest] = plan.keys;
      const values = await readPageAsOne(db, { ...plan, keys: [{ ...first!, nullable: false }, ...rest] }, window);
      if (values.length >= window.limit) return values;
      const isNull: Condition = { field: first!.column, column: first!.column, operator: 'null', value: true };
      const nulls = await readPageAsOne(
        db,
        { conditions: [...plan.conditions, isNull], keys: rest },
        { limit: window.limit - values.length, offset: 0 },
      );
      return [...values, ...nulls];
    },
    async count(db, plan) {
      checked(plan);
      const counted = { ...plan, after: undefined, rankCandidates: undefined }; // a count reads every match
      const result = await readRows(db, count(db, shapeOf(db, counted), paramsOf(counted, {})));
      return Number(result[0]?.count ?? 0);
    },
    async countUpTo(db, plan, cap) {
      checked(plan);
      const counted = { ...plan, after: undefined, rankCandidates: undefined }; // a count reads every match
      const result = await readRows(db, countUpTo(db, shapeOf(db, counted), paramsOf(counted, { limit: cap })));
      return Number(result[0]?.count ?? 0);
    },
    async estimate(db, plan, expression) {
      if (dialectOf(db) !== 'postgres') {
        const searchOnly = search && expression && plan.search !== undefined && plan.conditions.length === 0;
        return searchOnly ? vocabularyEstimate(db, search, expression) : undefined;
      }
      checked(plan);
      const counted = { ...plan, after: undefined, rankCandidates: undefined, sortsMatches: undefined }; // every match
      const statement = rows(db, shapeOf(db, counted), paramsOf(counted, {}));
      const result = await db.executeQuery(
        CompiledQuery.raw(`explain (format json) ${statement.sql}`, [...statement.parameters]),
      );
      const plans = (result.rows[0] as { 'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }] })['QUERY PLAN'];
      return Math.round(plans[0].Plan['Plan Rows']);
    },
  };
}
