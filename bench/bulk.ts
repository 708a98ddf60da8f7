// Data in bulk (DECISIONS §18): a batch of 1,000 creates, a write by filter of 10,000 rows and an export of
// those rows, on each database, against a real server (test/support's). Medians of `RUNS` runs, with the
// statements each took per row (`--dialect sqlite|postgres` narrows it to one database).
import { parseArgs } from 'node:util';
import { observeQueries } from '../src/core/db/database.ts';
import { DIALECTS } from '../test/support/dialects.ts';
import { startTestServer } from '../test/support/test-server.ts';

const { values: args } = parseArgs({ options: { dialect: { type: 'string' } } });
const RUNS = Number(process.env.RUNS ?? 3);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const loadavg = async () => (await import('node:fs')).readFileSync('/proc/loadavg', 'utf8').split(' ')[0];

for (const dialect of DIALECTS) {
  if (dialect.skip || (args.dialect && args.dialect !== dialect.name)) continue;
  const t = await startTestServer(dialect, { RATE_LIMIT_MAX: '100000000', DATABASE_POOL_SIZE: '4' });
  let statements = 0;
  observeQueries(t.server.db, () => (statements += 1));
  const counted = async <T>(work: () => Promise<T>) => {
    statements = 0;
    const start = performance.now();
    const result = await work();
    return { result, ms: performance.now() - start, statements };
  };
  const batchMs: number[] = [];
  let batchStatements = 0;
  for (let run = 0; run < 10; run += 1) {
    const operations = Array.from({ length: 1000 }, (_, i) => ({
      op: 'create',
      data: { name: `Bench ${run}-${i}`, category: 'bench', price: (i % 90) + 1, stock: i },
    }));
    const {
      result: res,
      ms,
      statements: n,
    } = await counted(() => t.request('POST', '/api/v2/products/batch', { token: t.adminToken, body: { operations } }));
    if (res.status !== 200) throw new Error(res.text);
    if (run >= 10 - RUNS) batchMs.push(ms);
    batchStatements = n;
  }
  const filterMs: number[] = [];
  let filterStatements = 0;
  for (let run = 0; run < RUNS; run += 1) {
    const {
      result: res,
      ms,
      statements: n,
    } = await counted(() =>
      t.request('PATCH', '/api/v2/products?category=bench', {
        token: t.adminToken,
        body: { stock: 5000 + run },
        headers: { prefer: 'max-affected=10000' },
      }),
    );
    if (res.status !== 200) throw new Error(res.text);
    filterMs.push(ms);
    filterStatements = n;
  }
  const exportMs: number[] = [];
  let rows = 0;
  for (let run = 0; run < RUNS; run += 1) {
    const start = performance.now();
    const res = await fetch(`${t.url}/api/v2/products?category=bench&format=csv`);
    rows = (await res.text()).split('\n').length - 2;
    exportMs.push(performance.now() - start);
  }
  console.log(
    `${dialect.name} (load ${await loadavg()}): batch of 1,000 creates ${median(batchMs).toFixed(0)} ms ` +
      `(${(batchStatements / 1000).toFixed(2)} statements a row); write by filter of 10,000 rows ` +
      `${median(filterMs).toFixed(0)} ms (${(filterStatements / 10000).toFixed(2)} statements a row); ` +
      `CSV export of ${rows} rows ${median(exportMs).toFixed(0)} ms`,
  );
  await t.close();
}
