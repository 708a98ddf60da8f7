import { sql } from 'kysely';
import { dialectOf, type Db } from '../src/core/db/database.ts';

/**
 * The issue's five list scenarios (and two extra reads), each with the SQL the products repository
 * runs for it: one statement, the page with the exact total as a scalar subquery on every row
 * (`listProductsPage`), so the benchmark can print its query plan.
 */
export interface Scenario {
  name: string;
  query: string;
  sql: (like: string) => string;
}

const COLUMNS = 'id, name, category, price_cents, stock, image, description, created_at, updated_at';

/** The page and its total in one statement, as `listProductsPage` builds it. */
const page = (where: string, order: string, offset: number, total: string) =>
  `select ${COLUMNS}, (${total}) as list_total from products ${where ? `where ${where} ` : ''}order by ${order} limit 20 offset ${offset}`;

export const SCENARIOS: Scenario[] = [
  {
    name: 'category + price range, -price',
    query: '?category=category-07&min_price=100&max_price=500&sort=-price',
    // The total: the price-bucket counters (500-cent buckets 20..99, one key range per stock status)
    // plus the one edge cent 500.00 counted in rows.
    sql: () =>
      page(
        `category = 'category-07' and price_cents >= 10000 and price_cents <= 50000`,
        'price_cents desc, id asc',
        0,
        `(select coalesce(sum(n), 0) from product_price_counts where in_stock = true and bucket >= 20 and bucket <= 99 and category = 'category-07')
          + (select coalesce(sum(n), 0) from product_price_counts where in_stock = false and bucket >= 20 and bucket <= 99 and category = 'category-07')
          + (select count(*) from products where category = 'category-07' and price_cents >= 50000 and price_cents < 50001)`,
      ),
  },
  {
    name: 'search, common substring',
    query: '?search=steel',
    sql: (like) =>
      page(
        `name ${like} '%steel%' escape '\\'`,
        'id asc',
        0,
        `select count(*) from products where name ${like} '%steel%' escape '\\'`,
      ),
  },
  {
    name: 'search, rare substring',
    query: '?search=zzq',
    sql: (like) =>
      page(
        `name ${like} '%zzq%' escape '\\'`,
        'id asc',
        0,
        `select count(*) from products where name ${like} '%zzq%' escape '\\'`,
      ),
  },
  {
    name: 'in_stock=true, sort=name',
    query: '?in_stock=true&sort=name',
    sql: () =>
      page('stock > 0', 'name asc, id asc', 0, 'select coalesce(sum(n), 0) from product_counts where in_stock = true'),
  },
  {
    name: 'deep page (page=2000)',
    query: '?page=2000',
    sql: () => page('', 'id asc', 39_980, 'select coalesce(sum(n), 0) from product_counts'),
  },
  {
    name: 'fields=id,name,price',
    query: '?fields=id,name,price',
    sql: () => page('', 'id asc', 0, 'select coalesce(sum(n), 0) from product_counts'),
  },
  {
    name: 'one product (GET /api/products/{id})',
    query: '/123457',
    sql: () => `select ${COLUMNS} from products where id = 123457`,
  },
  {
    name: 'category only',
    query: '?category=category-23',
    sql: () =>
      page(
        `category = 'category-23'`,
        'id asc',
        0,
        `select coalesce(sum(n), 0) from product_counts where category = 'category-23'`,
      ),
  },
];

/**
 * Statistics and dead rows as autovacuum would leave them on a live database. Every table: seeding
 * updates the counter tables once per batch, and a server with autovacuum off (as on the CI machine)
 * would otherwise read thousands of dead versions of their 100 rows on every request.
 */
export async function analyze(db: Db): Promise<void> {
  await sql.raw(dialectOf(db) === 'postgres' ? 'vacuum analyze' : 'analyze').execute(db);
}

/** Median time of five runs of a statement, as the server's own connection would see it (no HTTP). */
async function medianRunMs(db: Db, statement: string): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 5; i += 1) {
    const started = performance.now();
    await sql.raw(statement).execute(db);
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[2]!;
}

/** EXPLAIN QUERY PLAN on SQLite, EXPLAIN ANALYZE on PostgreSQL, of a scenario's statement. */
export async function explainScenario(db: Db, scenario: Scenario): Promise<string> {
  const postgres = dialectOf(db) === 'postgres';
  const statement = scenario.sql(postgres ? 'ilike' : 'like');
  const prefix = postgres ? 'explain (analyze, costs off)' : 'explain query plan';
  const { rows } = await sql.raw<Record<string, unknown>>(`${prefix} ${statement}`).execute(db);
  const plan = rows.map((row) => String(postgres ? row['QUERY PLAN'] : row.detail));
  if (!postgres) plan.push(`run ${(await medianRunMs(db, statement)).toFixed(2)} ms`);
  return `    ${plan.join('\n    ')}`;
}
