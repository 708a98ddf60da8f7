import { sql } from 'kysely';
import { dialectOf, type Db } from '../src/core/db/database.ts';

/**
 * The five list scenarios (and two extra reads), each with the SQL the products repository
 * runs for it (the page and the total), so the benchmark can print their query plans.
 */
export interface Scenario {
  name: string;
  query: string;
  data: (like: string) => string;
  count: string | ((like: string) => string);
}

const COLUMNS = 'id, name, category, price_cents, stock, image, description, created_at, updated_at';

export const SCENARIOS: Scenario[] = [
  {
    name: 'category + price range, -price',
    query: '?category=category-07&min_price=100&max_price=500&sort=-price',
    data: () =>
      `select ${COLUMNS} from products where category = 'category-07' and price_cents >= 10000 and price_cents <= 50000 order by price_cents desc, id asc limit 20 offset 0`,
    // The price-bucket counters (500-cent buckets 20..99) plus the one edge cent 500.00 counted in rows.
    count: `select (select coalesce(sum(n), 0) from product_price_counts where bucket >= 20 and bucket <= 99 and category = 'category-07')
      + (select count(*) from products where category = 'category-07' and price_cents >= 50000 and price_cents < 50001)`,
  },
  {
    name: 'search, common substring',
    query: '?search=steel',
    data: (like) => `select ${COLUMNS} from products where name ${like} '%steel%' escape '\\' order by id asc limit 20 offset 0`,
    count: (like) => `select count(*) from products where name ${like} '%steel%' escape '\\'`,
  },
  {
    name: 'search, rare substring',
    query: '?search=zzq',
    data: (like) => `select ${COLUMNS} from products where name ${like} '%zzq%' escape '\\' order by id asc limit 20 offset 0`,
    count: (like) => `select count(*) from products where name ${like} '%zzq%' escape '\\'`,
  },
  {
    name: 'in_stock=true, sort=name',
    query: '?in_stock=true&sort=name',
    data: () => `select ${COLUMNS} from products where stock > 0 order by name asc, id asc limit 20 offset 0`,
    count: `select sum(n) from product_counts where in_stock = true`,
  },
  {
    name: 'deep page (page=2000)',
    query: '?page=2000',
    data: () => `select ${COLUMNS} from products order by id asc limit 20 offset 39980`,
    count: `select sum(n) from product_counts`,
  },
  {
    name: 'fields=id,name,price',
    query: '?fields=id,name,price',
    data: () => `select ${COLUMNS} from products order by id asc limit 20 offset 0`,
    count: `select sum(n) from product_counts`,
  },
  {
    name: 'one product (GET /api/products/{id})',
    query: '/123457',
    data: () => `select ${COLUMNS} from products where id = 123457`,
    count: 'select 1',
  },
  {
    name: 'category only',
    query: '?category=category-23',
    data: () => `select ${COLUMNS} from products where category = 'category-23' order by id asc limit 20 offset 0`,
    count: `select sum(n) from product_counts where category = 'category-23'`,
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

/** EXPLAIN QUERY PLAN on SQLite, EXPLAIN ANALYZE on PostgreSQL, of a scenario's page and total. */
export async function explainScenario(db: Db, scenario: Scenario): Promise<string> {
  const postgres = dialectOf(db) === 'postgres';
  const like = postgres ? 'ilike' : 'like';
  const count = typeof scenario.count === 'string' ? scenario.count : scenario.count(like);
  const lines: string[] = [];
  for (const [label, statement] of [['page', scenario.data(like)], ['total', count]] as const) {
    const prefix = postgres ? 'explain (analyze, costs off)' : 'explain query plan';
    const { rows } = await sql.raw<Record<string, unknown>>(`${prefix} ${statement}`).execute(db);
    const plan = rows.map((row) => String(postgres ? row['QUERY PLAN'] : row.detail));
    if (!postgres) plan.push(`run ${(await medianRunMs(db, statement)).toFixed(2)} ms`);
    lines.push(`  ${label}:\n    ${plan.join('\n    ')}`);
  }
  return lines.join('\n');
}
