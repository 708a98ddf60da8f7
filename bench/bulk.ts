// Data in bulk (issue 71): a batch of 1,000 creates, a write by filter of 10,000 rows and an export of
// those rows, on each database, against a real server (test/support's). Medians of `RUNS` runs.
import { DIALECTS } from '../test/support/dialects.ts';
import { startTestServer } from '../test/support/test-server.ts';

const RUNS = Number(process.env.RUNS ?? 3);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

for (const dialect of DIALECTS) {
  if (dialect.skip) continue;
  const t = await startTestServer(dialect, { RATE_LIMIT_MAX: '100000000', DATABASE_POOL_SIZE: '4' });
  const batchMs: number[] = [];
  for (let run = 0; run < 10; run += 1) {
    const operations = Array.from({ length: 1000 }, (_, i) => ({
      op: 'create',
      data: { name: `Bench ${run}-${i}`, category: 'bench', price: (i % 90) + 1, stock: i },
    }));
    const start = performance.now();
    const res = await t.request('POST', '/api/v2/products/batch', { token: t.adminToken, body: { operations } });
    if (res.status !== 200) throw new Error(res.text);
    if (run >= 10 - RUNS) batchMs.push(performance.now() - start);
  }
  const filterMs: number[] = [];
  for (let run = 0; run < RUNS; run += 1) {
    const start = performance.now();
    const res = await t.request('PATCH', '/api/v2/products?category=bench', {
      token: t.adminToken,
      body: { stock: 5000 + run },
      headers: { prefer: 'max-affected=10000' },
    });
    if (res.status !== 200) throw new Error(res.text);
    filterMs.push(performance.now() - start);
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
    `${dialect.name}: batch of 1,000 creates ${median(batchMs).toFixed(0)} ms; write by filter of 10,000 rows ${median(filterMs).toFixed(0)} ms; CSV export of ${rows} rows ${median(exportMs).toFixed(0)} ms`,
  );
  await t.close();
}
