import { CompiledQuery, sql, type Expression, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import { dialectOf, type Db } from '../db/database.ts';
import { readRows } from '../db/fast-read.ts';
import { PLANNED_PER_VALUES } from '../db/pg-named-statements.ts';
import { statementCache } from '../db/statement-cache.ts';
import type { Condition, SortKey } from './list-grammar.ts';
import { keysetOf, orderOf, type OrderKey } from './list-keyset.ts';

export type { OrderKey } from './list-keyset.ts';

/**
 * The SQL of a queried list, over the one table its module names: conditions, order and keyset, all
 * from the grammar's columns, every value bound. Each shape (which conditions, operators, `in`
 * lengths, sort, whether a cursor and which of its values are null) is compiled once
 * (`statementCache`); the values only fill its parameters.
 */

export function orderKeysOf(sort: readonly SortKey[], idColumn: string, idDirection: 'asc' | 'desc'): OrderKey[] {
  const keys: OrderKey[] = [];
  for (const key of sort) {
    keys.push({ column: key.column, direction: key.direction, nullable: key.nullable });
    if (key.column === idColumn) return keys; // unique: nothing after it can break a tie
  }
  keys.push({ column: idColumn, direction: idDirection, nullable: false });
  return keys;
}

/** What the statement is built from (its values aside). */
export interface ListPlan {
  conditions: readonly Condition[];
  keys: readonly OrderKey[];
  /** The last item's key values, one per key, when a cursor continues a list. */
  after?: readonly unknown[] | undefined;
}

/** Any table: the module passes its name in, so core needs no type of it. */
type AnyDb = Kysely<Record<string, Record<string, unknown>>>;

const LIKE_ESCAPE = '\\';
/** A LIKE pattern matching `text` literally anywhere (`%`, `_`, `\` escaped). Always bound. */
export const containsPattern = (text: string): string => `%${text.replace(/[\\%_]/g, (char) => LIKE_ESCAPE + char)}%`;

interface Shape {
  key: string;
  plan: ListPlan;
  postgres: boolean;
  /** Whether PostgreSQL should plan each run for its values (PLANNED_PER_VALUES). */
  perValues: boolean;
}

/**
 * Operators whose best plan depends on the value: `created_at >= $1` keeps every row or none, and a
 * generic plan (a named statement after five runs) guesses a third, which in another field's order
 * (the default id order) walked the whole users table for a date after every row (bench/RESULTS.md,
 * session 13). Statements with one of these run unnamed on PostgreSQL, planned for their values on
 * every run. `contains` and `in` run so anyway (pg-named-statements.ts); equality keeps its generic plan
 * (a user's posts, a status: the hot paths, planned once).
 */
const PLANNED_FOR_VALUES = new Set(['gt', 'gte', 'lt', 'lte', 'ne']);

function shapeOf(db: Db, plan: ListPlan): Shape {
  const conditions = plan.conditions
    .map((c) => ({ ...c, column: c.anyOfColumns?.join('|') ?? c.column }))
    .map((c) =>
      c.operator === 'in'
        ? `${c.column} in ${(c.value as unknown[]).length}`
        : c.operator === 'null'
          ? `${c.column} null ${String(c.value)}`
          : `${c.column} ${c.operator}`,
    )
    .join();
  const keys = plan.keys.map((k) => `${k.column} ${k.direction}`).join();
  const after = plan.after ? plan.after.map((value) => (value === null ? 'n' : 'v')).join('') : '-';
  const postgres = dialectOf(db) === 'postgres';
  const perValues = postgres && plan.conditions.some((c) => PLANNED_FOR_VALUES.has(c.operator));
  return { key: `${conditions}|${keys}|${after}`, plan, postgres, perValues };
}

/** The bound values: `f<i>` per condition (an array for `in`), `k<j>` per cursor key, limit and offset. */
function paramsOf(plan: ListPlan, window: { limit?: number; offset?: number }): Record<string, unknown> {
  const params: Record<string, unknown> = {};
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
  return params;
}

function whereOf(
  shape: Shape,
  params: Record<string, unknown>,
  keyset: 'after' | 'none' = 'after',
): Expression<SqlBool>[] {
  const parts: Expression<SqlBool>[] = [];
  shape.plan.conditions.forEach((condition, index) => {
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
        parts.push(sql<SqlBool>`${column} in (${sql.join(value as unknown[])})`);
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
        parts.push(condition.value ? sql<SqlBool>`${column} is null` : sql<SqlBool>`${column} is not null`);
        break;
    }
  });
  if (shape.plan.after && keyset === 'after') parts.push(...keysetOf(shape.plan.keys, shape.plan.after, params));
  return parts;
}

const splitsAtNulls = (plan: ListPlan) => plan.after !== undefined && plan.keys[0]!.nullable && plan.after[0] !== null;

export interface ListStatements<Row> {
  /** One page: `limit` rows from `offset`, or right after `plan.after` when set (no offset then). */
  readPage(db: Db, plan: ListPlan, window: { limit: number; offset: number }): Promise<Row[]>;
  /** The exact number of rows the conditions match. */
  count(db: Db, plan: ListPlan): Promise<number>;
  /** The number of matching rows, counting no further than `cap`. */
  countUpTo(db: Db, plan: ListPlan, cap: number): Promise<number>;
  /** PostgreSQL's planner's estimate of the matching rows (undefined on SQLite). */
  estimate(db: Db, plan: ListPlan): Promise<number | undefined>;
}

/** The statements of a list over `table` (named by its module), ties broken by `idColumn`. */
export function createListStatements<Row>(table: string): ListStatements<Row> {
  const filtered = (db: Db, shape: Shape, params: Record<string, unknown>) => {
    let query = (db as unknown as AnyDb).selectFrom(table);
    for (const part of whereOf(shape, params)) query = query.where(part);
    return query;
  };
  /** The statement's text ends with the mark when its plan should follow its values. */
  const marked = <Q extends { modifyEnd(modifier: RawBuilder<unknown>): Q }>(shape: Shape, query: Q): Q =>
    shape.perValues ? query.modifyEnd(sql.raw(PLANNED_PER_VALUES)) : query;
  const page = statementCache({
    keyOf: (shape: Shape) => `page ${shape.key}`,
    build: (db, shape, params: Record<string, unknown>) => {
      let query = filtered(db, shape, params).selectAll();
      for (const order of orderOf(shape.plan.keys)) query = query.orderBy(order);
      query = query.limit(params.limit as number);
      return marked(shape, params.offset === undefined ? query : query.offset(params.offset as number));
    },
  });

  const count = statementCache({
    keyOf: (shape: Shape) => `count ${shape.key}`,
    build: (db, shape, params: Record<string, unknown>) =>
      marked(
        shape,
        filtered(db, shape, params).select((eb) => eb.fn.countAll<number | string>().as('count')),
      ),
  });
  const countUpTo = statementCache({
    keyOf: (shape: Shape) => `count-up-to ${shape.key}`,
    build: (db, shape, params: Record<string, unknown>) =>
      marked(
        shape,
        (db as unknown as AnyDb)
          .selectFrom(
            filtered(db, shape, params)
              .select(sql.lit(1).as('one'))
              .limit(params.limit as number)
              .as('capped'),
          )
          .select((eb) => eb.fn.countAll<number | string>().as('count')),
      ),
  });
  const rows = statementCache({
    keyOf: (shape: Shape) => `rows ${shape.key}`,
    build: (db, shape, params: Record<string, unknown>) => filtered(db, shape, params).selectAll(),
  });

  const readPageAsOne = (db: Db, plan: ListPlan, window: { limit: number; offset: number }) => {
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
      const shape = shapeOf(db, { ...plan, after: undefined });
      const result = await readRows(db, count(db, shape, paramsOf(shape.plan, {})));
      return Number(result[0]?.count ?? 0);
    },
    async countUpTo(db, plan, cap) {
      const shape = shapeOf(db, { ...plan, after: undefined });
      const result = await readRows(db, countUpTo(db, shape, paramsOf(shape.plan, { limit: cap })));
      return Number(result[0]?.count ?? 0);
    },
    async estimate(db, plan) {
      if (dialectOf(db) !== 'postgres') return undefined;
      const shape = shapeOf(db, { ...plan, after: undefined });
      const statement = rows(db, shape, paramsOf(shape.plan, {}));
      const result = await db.executeQuery(
        CompiledQuery.raw(`explain (format json) ${statement.sql}`, [...statement.parameters]),
      );
      const plans = (result.rows[0] as { 'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }] })['QUERY PLAN'];
      return Math.round(plans[0].Plan['Plan Rows']);
    },
  };
}
