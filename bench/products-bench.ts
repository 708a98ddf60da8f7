/**
 * The products list at a million rows: `npm run bench:products [-- options]`.
 *
 * For each database it seeds N products across 50 categories with the CLI `seed` command (once;
 * a database that already holds N products is reused), starts the real server as a child process
 * (its own event loop, as in production), prints the query plans of each scenario and measures it
 * with autocannon: requests per second and p50/p99 latency, medians over repeated runs.
 * Results and their discussion live in bench/PRODUCTS.md. Not part of `npm test`.
 *
 * Options: --dialects sqlite,postgres  --products 1000000  --runs 3  --duration 10  --connections 16
 *          --random-page-cost 4 (the planner setting of the PostgreSQL benchmark database; 4 is PostgreSQL's default)
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { createDatabase } from '../src/core/db/database.ts';
import { analyze, explainScenario, SCENARIOS } from './products-scenarios.ts';
import { serverArgs } from './suite/server-command.ts';

/** The part of autocannon's API used here, typed locally so the script needs no type package. */
interface LoadResult {
  requests: { average: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}
const autocannon = createRequire(import.meta.url)('autocannon') as (options: {
  url: string;
  connections: number;
  duration: number;
  timeout: number;
}) => Promise<LoadResult>;

const { values } = parseArgs({
  options: {
    dialects: { type: 'string', default: 'sqlite,postgres' },
    products: { type: 'string', default: '1000000' },
    runs: { type: 'string', default: '3' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '16' },
    'random-page-cost': { type: 'string', default: '4' },
  },
});
const PRODUCTS = Number(values.products);
const RUNS = Number(values.runs);
const DURATION = Number(values.duration);
const CONNECTIONS = Number(values.connections);
const RANDOM_PAGE_COST = Number(values['random-page-cost']);
const PG_ADMIN_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const NODE = process.execPath;

function databaseUrl(dialect: string): string {
  if (dialect === 'sqlite') {
    mkdirSync('data/bench', { recursive: true });
    return `sqlite:./data/bench/products-${PRODUCTS}.db`;
  }
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/products_bench_${PRODUCTS}`;
  return url.toString();
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function productCount(dialect: string, url: string): Promise<number> {
  if (dialect === 'postgres') {
    const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
    await admin.connect();
    const name = new URL(url).pathname.slice(1);
    const exists = await admin.query('select 1 from pg_database where datname = $1', [name]);
    if (exists.rowCount === 0) await admin.query(`create database ${name}`);
    // The planner's cost of a random page read: PostgreSQL's default 4 unless told otherwise. 1.1 (as
    // for SSD) serves a category page from (category, id) but sends a common-substring search to a
    // parallel scan of the whole name index, 3x slower (bench/PRODUCTS.md).
    await admin.query(`alter database ${name} set random_page_cost = ${RANDOM_PAGE_COST}`);
    await admin.end();
  }
  const db = createDatabase(url);
  try {
    const row = await db
      .selectFrom('products')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  } catch {
    return 0; // no schema yet
  } finally {
    await db.destroy();
  }
}

function run(args: string[], env: Record<string, string>): void {
  const result = spawnSync(NODE, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit'] });
  if (result.status !== 0) throw new Error(`${args.join(' ')} failed with ${result.status}`);
}

async function startServer(url: string, port: number): Promise<ChildProcess> {
  const child = spawn(NODE, serverArgs(), {
    env: {
      ...process.env,
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: String(port),
      DATABASE_URL: url,
      DEMO_DATA: 'false',
      LOG_LEVEL: 'warn',
      JWT_SECRET: 'bench-secret-bench-secret-bench-secret',
      ADMIN_PASSWORD: 'bench-password',
      // The benchmark measures the query path, not the rate limiter or load shedding.
      RATE_LIMIT_MAX: '1000000000',
      OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
      REPORT_WORKER: 'false',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  for (let i = 0; i < 600; i += 1) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) return child;
    } catch {
      // not listening yet (migrations on a million rows take a while the first time)
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  child.kill('SIGTERM');
  throw new Error('server did not start');
}

async function measure(url: string): Promise<{ rps: number; p50: number; p99: number; failed: number }> {
  // Expensive scenarios queue up to 16 requests of a second or more: allow for that, then let the
  // server drain its backlog so the next run starts from an idle server.
  const result = await autocannon({ url, connections: CONNECTIONS, duration: DURATION, timeout: 60 });
  await drain(url);
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    failed: result.non2xx + result.errors + result.timeouts,
  };
}

/** Waits until the server answers its liveness probe quickly again (its queue is empty). */
async function drain(url: string): Promise<void> {
  const health = new URL('/healthz', url).toString();
  for (let i = 0; i < 120; i += 1) {
    const started = performance.now();
    await fetch(health).catch(() => undefined);
    if (performance.now() - started < 50) return;
  }
}

const rows: string[] = [];
console.log(
  `# products list, ${PRODUCTS.toLocaleString('en-US')} products, ${CONNECTIONS} connections, ${RUNS}×${DURATION}s per scenario`,
);
console.log(
  `# ${new Date().toISOString()} · ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'} · node ${process.version}`,
);
for (const dialect of values.dialects.split(',')) {
  const url = databaseUrl(dialect);
  const existing = await productCount(dialect, url);
  if (existing < PRODUCTS) {
    if (existing > 0) throw new Error(`${url} holds ${existing} products; drop it to reseed`);
    console.log(`\n## seeding ${dialect}`);
    run(['src/cli.ts', 'seed', '--users', '0', '--orders', '0', '--products', String(PRODUCTS), '--categories', '50'], {
      DATABASE_URL: url,
    });
  }
  const port = await freePort();
  const server = await startServer(url, port);
  try {
    const db = createDatabase(url);
    try {
      await analyze(db);
      console.log(`\n## ${dialect}: query plans`);
      for (const scenario of SCENARIOS) console.log(`\n### ${scenario.name}\n${await explainScenario(db, scenario)}`);
    } finally {
      await db.destroy();
    }
    console.log(`\n## ${dialect}: load`);
    for (const scenario of SCENARIOS) {
      const target = `http://127.0.0.1:${port}/api/products${scenario.query}`;
      await autocannon({ url: target, connections: CONNECTIONS, duration: 2, timeout: 60 }); // warm-up
      await drain(target);
      const results = [];
      for (let i = 0; i < RUNS; i += 1) results.push(await measure(target));
      const row = `| ${dialect} | ${scenario.name} | \`${scenario.query}\` | ${Math.round(median(results.map((r) => r.rps)))} | ${median(results.map((r) => r.p50))} | ${median(results.map((r) => r.p99))} | ${results.reduce((s, r) => s + r.failed, 0)} |`;
      console.log(row);
      rows.push(row);
    }
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
  }
}
console.log('\n| db | scenario | query | req/s | p50 ms | p99 ms | failed |\n|---|---|---|---|---|---|---|');
for (const row of rows) console.log(row);
