import { sql, type Expression, type SqlBool } from 'kysely';
import { dialectOf, type Db } from '../db/database.ts';
import { containsPattern } from '../db/like-pattern.ts';
import type { Bound, BoundParams } from '../db/statement-cache.ts';
import type { Condition, Operator } from './list-grammar.ts';
import { keysetOf, type OrderKey } from './list-keyset.ts';

/**
 * A list statement's shape and values (list-sql.ts builds the statements): what a plan compiles to
 * (its conditions' columns and operators, its order, which cursor values are null, never a value),
 * the values it binds, and its WHERE, every value bound. The aggregates filter with the same WHERE
 * (aggregate-sql.ts).
 */

/** What the statement is built from (its values aside). */
export interface ListPlan {
  conditions: readonly Condition[];
  keys: readonly OrderKey[];
  /** The last item's key values, one per key, when a cursor continues a list. */
  after?: readonly unknown[] | undefined;
  /** A full-text search's bound text in the database's dialect (search-source.ts `searchTextOf`). */
  search?: string | undefined;
  /**
   * With a search in relevance order: the page is ranked among the first this many matches that pass
   * the conditions (bounded relevance, DECISIONS §14 "Cost"), not among every match. Counts ignore it.
   */
  rankCandidates?: number | undefined;
  /**
   * PostgreSQL, a bounded page: the candidates (still the lowest ids among the matches) are found by
   * sorting every match's id, for a filter the planner expects few matches of, instead of walking the ids
   * in order until enough match (list-page.ts decides from the estimate).
   */
  sortsMatches?: boolean | undefined;
}

/** A condition as the statement's shape sees it: its column(s) and operator, never its value. */
export type ConditionShape = {
  column: string;
  anyOfColumns: readonly string[] | undefined;
  operator: Operator;
  isNull: boolean | undefined; // `null`: whether the value must be null (the operator's flag, not a bound value)
};

/**
 * What a list statement is built from: its conditions' columns and operators, its order, which of a
 * cursor's values are null (`in` lengths are the params' own). The values are bound params only.
 */
export type Shape = {
  conditions: readonly ConditionShape[];
  keys: readonly OrderKey[];
  afterNull: readonly boolean[] | undefined;
  postgres: boolean;
  perValues: boolean; // whether PostgreSQL should plan each run for its values (PLANNED_PER_VALUES)
  searched: boolean;
  bounded: boolean; // a page ranked among `rankCandidates` matches (the bound is a bound param)
  sortsMatches: boolean; // PostgreSQL, bounded: the candidates' ids sorted, not walked (ListPlan)
};

export type ListParams = Record<string, unknown>; // the values a list statement binds (paramsOf)
export type BoundListParams = BoundParams<ListParams>;

/**
 * Operators whose best plan depends on the value: `created_at >= $1` keeps every row or none, and a
 * generic plan (a named statement after five runs) guesses a third, which in another field's order
 * (the default id order) walked the whole users table for a date after every row. Statements with one
 * of these run unnamed on PostgreSQL, planned for their values on every run. `contains` and `in` run so
 * anyway (pg-named-statements.ts); equality keeps its generic plan (a user's posts, a status: planned once).
 */
const PLANNED_FOR_VALUES = new Set(['gt', 'gte', 'lt', 'lte', 'ne']);

export function shapeOf(db: Db, plan: ListPlan): Shape {
  const postgres = dialectOf(db) === 'postgres';
  return {
    conditions: plan.conditions.map((c) => ({
      column: c.column,
      anyOfColumns: c.anyOfColumns,
      operator: c.operator,
      isNull: c.operator === 'null' ? Boolean(c.value) : undefined,
    })),
    keys: plan.keys.map(({ column, direction, nullable }) => ({ column, direction, nullable })),
    afterNull: plan.after?.map((value) => value === null),
    postgres,
    perValues: postgres && plan.conditions.some((c) => PLANNED_FOR_VALUES.has(c.operator)),
    searched: plan.search !== undefined,
    bounded: plan.search !== undefined && (plan.rankCandidates ?? 0) > 0,
    sortsMatches: postgres && plan.search !== undefined && (plan.rankCandidates ?? 0) > 0 && plan.sortsMatches === true,
  };
}

/** The bound values: `f<i>` per condition (an array for `in`), `k<j>` per cursor key, limit and offset. */
export function paramsOf(plan: ListPlan, window: { limit?: number; offset?: number }): ListParams {
  const params: ListParams = {};
  plan.conditions.forEach((condition, index) => {
    if (condition.operator === 'null') return;
    params[`f${index}`] =
      condition.operator === 'contains' ? containsPattern(String(condition.value)) : condition.value;
  });
  plan.after?.forEach((value, index) => {
    if (value !== null) params[`k${index}`] = value;
  });
  params.limit = window.limit;
  params.offset = window.offset;
  params.q = plan.search;
  if (plan.search !== undefined && (plan.rankCandidates ?? 0) > 0) params.candidates = plan.rankCandidates;
  return params;
}

/** The conditions, then the cursor's keyset unless `keyset` is false. */
export function whereOf(shape: Shape, params: BoundListParams, keyset = true): Expression<SqlBool>[] {
  const parts: Expression<SqlBool>[] = [];
  shape.conditions.forEach((condition, index) => {
    const column = sql.ref(condition.column);
    const value = params[`f${index}`];
    switch (condition.operator) {
      case 'eq':
        parts.push(sql<SqlBool>`${column} = ${value}`);
        break;
      case 'ne':
        // Nulls are "not equal" too: a user whose age is unknown is not 30.
        parts.push(
          shape.postgres ? sql<SqlBool>`${column} is distinct from ${value}` : sql<SqlBool>`${column} is not ${value}`,
        );
        break;
      case 'gt':
        parts.push(sql<SqlBool>`${column} > ${value}`);
        break;
      case 'gte':
        parts.push(sql<SqlBool>`${column} >= ${value}`);
        break;
      case 'lt':
        parts.push(sql<SqlBool>`${column} < ${value}`);
        break;
      case 'lte':
        parts.push(sql<SqlBool>`${column} <= ${value}`);
        break;
      case 'in':
        parts.push(sql<SqlBool>`${column} in (${sql.join(value as unknown as readonly Bound<unknown>[])})`);
        break;
      case 'contains': {
        // SQLite's LIKE ignores ASCII case; PostgreSQL needs ILIKE (served by a trigram index, one per
        // column of a field read in several: a bitmap OR of them).
        const like = (ref: typeof column) =>
          sql<SqlBool>`${ref} ${sql.raw(shape.postgres ? 'ilike' : 'like')} ${value} escape '\\'`;
        const columns = condition.anyOfColumns?.map((name) => like(sql.ref(name)));
        parts.push(columns ? sql<SqlBool>`(${sql.join(columns, sql` or `)})` : like(column));
        break;
      }
      case 'null':
        parts.push(condition.isNull ? sql<SqlBool>`${column} is null` : sql<SqlBool>`${column} is not null`);
        break;
    }
  });
  if (keyset && shape.afterNull) parts.push(...keysetOf(shape.keys, shape.afterNull, params));
  return parts;
}
