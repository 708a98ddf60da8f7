import { sql, type Expression, type Kysely, type OrderByItemBuilder, type RawBuilder, type SqlBool } from 'kysely';
import { dialectOf, type Db } from '../db/database.ts';
import { matchingRows } from '../db/matching-rows.ts';
import { PLANNED_PER_VALUES } from '../db/pg-named-statements.ts';
import { directionSql } from '../db/sort-direction.ts';
import { MAX_FACET_VALUES, type AggregateGrammar, type TimeBucket } from './aggregate-grammar.ts';
import { groupOf, keyValueOf, type AggregateResult, type FacetValue } from './aggregate-answer.ts';
import type { AggregateQuery, GroupKey, Measure } from './aggregate-parse.ts';
import type { Condition } from './list-grammar.ts';
import { paramsOf, shapeOf, whereOf } from './list-shape.ts';
import { searchedRows, searchTextOf, type SearchSource } from '../search/search-source.ts';
import { vocabularyEstimate } from '../search/vocabulary-estimate.ts';
import { isEmptySearch, type SearchExpression } from '../search/web-search.ts';

/**
 * The statements of aggregates and facets over one table its module names (DECISIONS §14): the
 * WHERE of the list's own conditions (list-shape.ts, so they filter exactly as the page does, a
 * customer's scope included), group keys, measures and order from the grammar's columns and closed
 * sets of SQL text, every value bound. Money is summed in integer cents; the rows become the answer in
 * aggregate-answer.ts.
 */

type AnyDb = Kysely<Record<string, Record<string, unknown>>>;

/**
 * Every aggregate and facet statement runs unnamed on PostgreSQL, planned for its values: its best plan
 * depends on them (a customer's few orders or every order), its texts vary with every group and measure
 * and would take the named slots the lists' hot statements use (pg-named-statements.ts), and planning
 * costs little beside reading every matching row.
 */
// eslint-disable-next-line no-restricted-syntax -- a comment constant of pg-named-statements.ts, no client text
const PER_VALUES = sql.raw(PLANNED_PER_VALUES);

/** The WHERE parts of list conditions, every value bound: the list statements' own (list-shape.ts). */
export function conditionsWhere(db: Db, conditions: readonly Condition[]): Expression<SqlBool>[] {
  const plan = { conditions, keys: [] };
  const bound: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(paramsOf(plan, {}))) {
    if (value !== undefined) bound[name] = Array.isArray(value) ? value.map((item) => sql.val(item)) : sql.val(value);
  }
  return whereOf(shapeOf(db, plan), bound as Parameters<typeof whereOf>[1]);
}

/**
 * A UTC bucket's start, as the ISO text of a timestamp (`2026-11-01T00:00:00.000Z`), the same on both
 * databases: PostgreSQL truncates the timestamptz in UTC (an ISO week starts on Monday); SQLite formats
 * the stored ISO text (`weekday 0` moves to the week's Sunday, six days back is its Monday).
 */
const BUCKETS: Record<
  'postgres' | 'sqlite',
  Record<TimeBucket, (column: RawBuilder<unknown>) => RawBuilder<unknown>>
> = {
  postgres: {
    day: (column) => sql`date_trunc('day', ${column}, 'UTC')`,
    week: (column) => sql`date_trunc('week', ${column}, 'UTC')`,
    month: (column) => sql`date_trunc('month', ${column}, 'UTC')`,
    year: (column) => sql`date_trunc('year', ${column}, 'UTC')`,
  },
  sqlite: {
    day: (column) => sql`strftime('%Y-%m-%dT00:00:00.000Z', ${column})`,
    week: (column) => sql`strftime('%Y-%m-%dT00:00:00.000Z', ${column}, 'weekday 0', '-6 days')`,
    month: (column) => sql`strftime('%Y-%m-01T00:00:00.000Z', ${column})`,
    year: (column) => sql`strftime('%Y-01-01T00:00:00.000Z', ${column})`,
  },
};

const MEASURE_SQL = {
  count: () => sql`count(*)`,
  sum: (column: RawBuilder<unknown>) => sql`sum(${column})`,
  avg: (column: RawBuilder<unknown>) => sql`avg(${column})`,
  min: (column: RawBuilder<unknown>) => sql`min(${column})`,
  max: (column: RawBuilder<unknown>) => sql`max(${column})`,
};

const measureSql = (measure: Measure) =>
  measure.fn === 'count' ? MEASURE_SQL.count() : MEASURE_SQL[measure.fn](sql.ref(measure.column));

/** Text keys order by their bytes on both databases (PostgreSQL's default collation would not). */
function groupOrderSql(postgres: boolean, group: GroupKey, expression: RawBuilder<unknown>): RawBuilder<unknown> {
  return postgres && group.type === 'text' ? sql`${expression} collate "C"` : expression;
}

export interface AggregateStatements {
  /** The groups of the rows `conditions` match, their measures, in the query's order, `limit` of them. */
  aggregate(
    db: Db,
    conditions: readonly Condition[],
    query: AggregateQuery,
    search?: SearchExpression,
  ): Promise<AggregateResult>;
  /** Per facet named: its values among the rows `conditions` match, leaving out the facet field's own conditions. */
  facets(
    db: Db,
    conditions: readonly Condition[],
    names: readonly string[],
    search?: SearchExpression,
  ): Promise<Record<string, FacetValue[]>>;
  /**
   * As `facets`, reading at most `exactUpTo` + 1 matching rows per facet: exact when no more match;
   * else the counts of those rows scaled to the number of matches (PostgreSQL's planner's estimate,
   * SQLite's count), and `estimated` (DECISIONS §14 "Cost": a facet over a large match set).
   */
  boundedFacets(
    db: Db,
    conditions: readonly Condition[],
    names: readonly string[],
    search: SearchExpression | undefined,
    exactUpTo: number,
  ): Promise<{ facets: Record<string, FacetValue[]>; estimated: boolean }>;
}

export interface AggregateOptions {
  /** The table's full-text search (`q`): with one, the aggregates and facets of its matches. */
  searchSource?: SearchSource | undefined;
  /**
   * One facet's values and counts among the rows `conditions` match (its own conditions left out) from
   * counters the module maintains, without reading rows; or undefined when its counters cannot answer
   * them (the rows are read then). Never asked with a search: counters count rows, not matches.
   */
  countedFacet?: (db: Db, name: string, conditions: readonly Condition[]) => Promise<FacetValue[]> | undefined;
}

/**
 * The aggregate statements over `table`, naming only `columns` (the list's and the grammar's): a
 * condition, group or measure on any other column is refused before any SQL is built.
 */
export function createAggregateStatements(
  table: string,
  grammar: AggregateGrammar,
  columns: readonly string[],
  { searchSource, countedFacet }: AggregateOptions = {},
): AggregateStatements {
  const known = new Set(columns);

  const check = (named: readonly string[]) => {
    const unknown = named.find((column) => !known.has(column));
    if (unknown !== undefined) throw new Error(`aggregate of ${table}: column "${unknown}" is not one of its columns`);
  };
  const conditionColumns = (conditions: readonly Condition[]) =>
    conditions.flatMap((condition) => condition.anyOfColumns ?? [condition.column]);
  /** The rows `conditions` match; with `search` (`q`), only its matches (the list's own rows: search-source.ts). */
  const filtered = (db: Db, conditions: readonly Condition[], search: SearchExpression | undefined) => {
    if (search && !searchSource) throw new Error(`aggregate of ${table}: no full-text search declared`);
    const postgres = dialectOf(db) === 'postgres';
    // A `q` of no word to find (only punctuation or stop words) matches nothing, as in the list (list-page.ts).
    const nothing = search !== undefined && isEmptySearch(search);
    const from =
      search && searchSource && !nothing
        ? searchedRows(searchSource, postgres, sql.val(searchTextOf(search, postgres)))
        : undefined;
    let query = (db as unknown as AnyDb).selectFrom((from ?? table) as string); // a table, or one aliased as it
    if (nothing) query = query.where(sql<boolean>`1 = 0`);
    for (const part of conditionsWhere(db, conditions)) query = query.where(part);
    return query;
  };
  /** A facet's field and the conditions it counts under (its own left out); its counters' answer if they have one. */
  const facetOf = (db: Db, name: string, conditions: readonly Condition[], search: SearchExpression | undefined) => {
    const field = grammar.groups[name]!;
    const others = conditions.filter((condition) => condition.field !== name);
    check([...conditionColumns(others), field.column]);
    return { field, others, counted: search ? undefined : countedFacet?.(db, name, others) };
  };

  return {
    async aggregate(db, conditions, query, search) {
      check([
        ...conditionColumns(conditions),
        ...query.groups.map((group) => group.column),
        ...query.measures.flatMap((measure) => (measure.fn === 'count' ? [] : [measure.column])),
      ]);
      const postgres = dialectOf(db) === 'postgres';
      const groupSql = query.groups.map((group) =>
        group.type === 'bucket'
          ? BUCKETS[postgres ? 'postgres' : 'sqlite'][group.bucket](sql.ref(group.column))
          : sql.ref(group.column),
      );
      const selections = [
        ...groupSql.map((expression, index) => expression.as(`g${index}`)),
        sql`count(*)`.as('n'),
        ...query.measures.flatMap((measure, index) => {
          if (measure.fn === 'count') return [];
          // An average is the exact sum over the count, divided here (half-even), not the database's float.
          if (measure.fn === 'avg') {
            const column = sql.ref(measure.column);
            return [sql`sum(${column})`.as(`m${index}`), sql`count(${column})`.as(`c${index}`)];
          }
          return [measureSql(measure).as(`m${index}`)];
        }),
        ...(groupSql.length > 0 ? [sql`count(*) over ()`.as('groups_total')] : []),
      ];
      let statement = filtered(db, conditions, search).select(selections);
      if (groupSql.length > 0) statement = statement.groupBy(groupSql);
      const order: [RawBuilder<unknown>, (item: OrderByItemBuilder) => OrderByItemBuilder][] = [];
      const ordered = new Set<string>();
      for (const key of query.sort) {
        const ascending = directionSql(key.direction) === 'asc';
        const direction = (item: OrderByItemBuilder) => (ascending ? item.asc() : item.desc()).nullsLast();
        if ('group' in key.by) {
          const index = query.groups.indexOf(key.by.group);
          ordered.add(key.by.group.name);
          order.push([groupOrderSql(postgres, key.by.group, groupSql[index]!), direction]);
        } else order.push([measureSql(key.by.measure), direction]);
      }
      query.groups.forEach((group, index) => {
        if (!ordered.has(group.name))
          order.push([groupOrderSql(postgres, group, groupSql[index]!), (item) => item.asc().nullsLast()]);
      });
      for (const [expression, modifiers] of order) statement = statement.orderBy(expression, modifiers);
      const rows = (await statement.limit(query.limit).modifyEnd(PER_VALUES).execute()) as Record<string, unknown>[];
      return {
        data: rows.map((row) => groupOf(row, query)),
        groups: groupSql.length === 0 ? rows.length : Number(rows[0]?.groups_total ?? 0),
      };
    },

    async facets(db, conditions, names, search) {
      const postgres = dialectOf(db) === 'postgres';
      const answer: Record<string, FacetValue[]> = {};
      for (const name of names) {
        // The facet's own filter left out: a shop shows every category's count beside one category's page.
        const { field, others, counted } = facetOf(db, name, conditions, search);
        if (counted) {
          answer[name] = await counted;
          continue;
        }
        const column = sql.ref(field.column);
        const group = { name, column: field.column, type: field.type };
        const rows = (await filtered(db, others, search)
          .select([column.as('value'), sql`count(*)`.as('count')])
          .groupBy(column)
          .orderBy(sql`count(*)`, (item) => item.desc())
          .orderBy(groupOrderSql(postgres, group, column), (item) => item.asc())
          .limit(MAX_FACET_VALUES)
          .modifyEnd(PER_VALUES)
          .execute()) as { value: unknown; count: unknown }[];
        answer[name] = rows.map((row) => ({ value: keyValueOf(group, row.value), count: Number(row.count) }));
      }
      return answer;
    },

    async boundedFacets(db, conditions, names, search, exactUpTo) {
      const postgres = dialectOf(db) === 'postgres';
      const facets: Record<string, FacetValue[]> = {};
      let estimated = false;
      for (const name of names) {
        const { field, others, counted } = facetOf(db, name, conditions, search);
        if (counted) {
          facets[name] = await counted;
          continue;
        }
        const group = { name, column: field.column, type: field.type };
        // The first matches the database finds, no more than one beyond the exact limit: `read` says how many.
        const sample = filtered(db, others, search)
          .select(sql.ref(field.column).as('value'))
          .limit(exactUpTo + 1)
          .as('sample');
        const value = sql.ref('sample.value');
        const rows = (await (db as unknown as AnyDb)
          .selectFrom(sample)
          .select([value.as('value'), sql`count(*)`.as('count'), sql`sum(count(*)) over ()`.as('read')])
          .groupBy(value)
          .orderBy(sql`count(*)`, (item) => item.desc())
          .orderBy(groupOrderSql(postgres, group, value), (item) => item.asc())
          .limit(MAX_FACET_VALUES)
          .modifyEnd(PER_VALUES)
          .execute()) as { value: unknown; count: unknown; read: unknown }[];
        const read = Number(rows[0]?.read ?? 0);
        // SQLite counts the matches, unless a search alone has its vocabulary's estimate (as the list's total).
        const fromVocabulary = !postgres && search && searchSource && others.length === 0;
        const matches = async () =>
          fromVocabulary
            ? vocabularyEstimate(db, searchSource, search)
            : matchingRows(db, filtered(db, others, search).selectAll().compile());
        const scale = read > exactUpTo ? (await matches()) / read : 1;
        if (read > exactUpTo) estimated = true;
        facets[name] = rows.map((row) => ({
          value: keyValueOf(group, row.value),
          count: Math.max(1, Math.round(Number(row.count) * Math.max(scale, 1))),
        }));
      }
      return { facets, estimated };
    },
  };
}
