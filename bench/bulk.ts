// Data in bulk (DECISIONS §18): a batch of 1,000 creates, a write by filter of 10,000 rows (PATCH), an export of
// those rows and a DELETE by filter of 10,000 rows (each run its own rows), on each database, against a real
// server (test/support's). Medians of `RUNS` runs, with the statements each took per row (`--dialect
// sqlite|postgres` narrows it to one database).
import { createReadStream, createWriteStream, readFileSync, statSync } from 'node:fs';
import { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { observeQueries } from '../src/core/db/database.ts';
import { DIALECTS } from '../test/support/dialects.ts';
import { startTestServer } from '../test/support/test-server.ts';

const { values: args } = parseArgs({ options: { dialect: { type: 'string' }, 'import-rows': { type: 'string' } } });
const RUNS = Number(process.env.RUNS ?? 3);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const loadavg = async () => readFileSync('/proc/loadavg', 'utf8').split(' ')[0];

const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const peakRss = () => {
  let peak = 0;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 100);
  return () => {
    clearInterval(timer);
    return Math.round(Math.max(peak, process.memoryUsage().rss) / 2 ** 20);
  };
};

/**
 * `--import-rows N` (DECISIONS §18 "Cost"): an import of N products (CSV, create mode, events on) run by the workers of
 * a real server (one process, API and workers), then the CSV export of those rows, with the process's peak RSS
 * during each (sampled every 100 ms), the database's time per kind of statement and the load average.
 */
async function importRun(ROWS: number): Promise<void> {
  const file = `/tmp/bulk-import-${ROWS}.csv`;
  const out = createWriteStream(file);
  out.write('name,category,price,stock,sku,description\n');
  for (let i = 0; i < ROWS; i += 1) {
    const line = `Imported product ${i},bulk-import,${(1 + (i % 9000) / 100).toFixed(2)},${i % 500},SKU-${i},A plain description of imported product number ${i} for the benchmark\n`;
    if (!out.write(line)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  }
  out.end();
  await finished(out);

  const dialect = DIALECTS.find((d) => d.name === (args.dialect ?? 'postgres'))!;
  const t = await startTestServer(dialect, {
    RATE_LIMIT_MAX: '100000000',
    DATABASE_POOL_SIZE: '4',
    IMPORT_POLL_MS: '50',
    // The server reads no environment of its own (test-server.ts): lanes to compare are passed through.
    ...(process.env.IMPORT_LANES ? { IMPORT_LANES: process.env.IMPORT_LANES } : {}),
  });
  console.log(`${dialect.name}: ${ROWS} rows, ${(statSync(file).size / 1e6).toFixed(0)} MB CSV; load before ${load()}`);

  // Where the import's time goes in the database: each kind of statement's total duration (as the pool saw it).
  const spent = new Map<string, { ms: number; n: number }>();
  const stopObserving = observeQueries(t.server.db, (text, ms) => {
    const kind = text.replace(/\s+/g, ' ').slice(0, 40);
    const entry = spent.get(kind) ?? { ms: 0, n: 0 };
    entry.ms += ms;
    entry.n += 1;
    spent.set(kind, entry);
  });

  let rss = peakRss();
  const start = performance.now();
  const res = await fetch(`${t.url}/api/v2/imports?resource=products&mode=create`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': 'text/csv' },
    body: Readable.toWeb(createReadStream(file)) as ReadableStream,
    duplex: 'half',
  } as RequestInit);
  if (res.status !== 202) throw new Error(await res.text());
  const uploaded = performance.now();
  const location = res.headers.get('location')!;
  let job: { status: string; rows: Record<string, number> };
  for (;;) {
    job = (await t.request('GET', location, { token: t.adminToken })).body;
    if (['done', 'failed', 'cancelled'].includes(job.status)) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const done = performance.now();
  const seconds = (done - start) / 1000;
  console.log(
    `import: ${job.status} ${JSON.stringify(job.rows)} in ${seconds.toFixed(1)} s (upload ${((uploaded - start) / 1000).toFixed(1)} s), ` +
      `${Math.round(ROWS / seconds)} rows/s; peak RSS ${rss()} MB; load after ${load()}`,
  );

  stopObserving();
  for (const [kind, { ms, n }] of [...spent].sort((a, b) => b[1].ms - a[1].ms).slice(0, Number(process.env.TOP ?? 12)))
    console.log(`  ${(ms / 1000).toFixed(1)} s in ${n} × ${kind}`);
  rss = peakRss();
  const exportStart = performance.now();
  const exported = await fetch(`${t.url}/api/v2/products?category=bulk-import&format=csv`, {
    headers: { authorization: `Bearer ${t.adminToken}` },
  });
  let lines = 0;
  for await (const chunk of exported.body as unknown as AsyncIterable<Uint8Array>)
    for (const byte of chunk) if (byte === 10) lines += 1;
  const exportSeconds = (performance.now() - exportStart) / 1000;
  console.log(`export: ${lines - 1} rows in ${exportSeconds.toFixed(1)} s; peak RSS ${rss()} MB; load after ${load()}`);
  await t.close();
}

if (args['import-rows']) await importRun(Number(args['import-rows']));
else
  for (const dialect of DIALECTS) {
    if (dialect.skip || (args.dialect && args.dialect !== dialect.name)) continue;
    const t = await startTestServer(dialect, { RATE_LIMIT_MAX: '100000000', DATABASE_POOL_SIZE: '4' });
    let statements = 0;
    // The write by filter's database time per kind of statement (its last run's), as the import's below.
    const spent = new Map<string, { ms: number; n: number }>();
    observeQueries(t.server.db, (text, ms) => {
      statements += 1;
      const kind = text.replace(/\s+/g, ' ').slice(0, 50);
      const entry = spent.get(kind) ?? { ms: 0, n: 0 };
      entry.ms += ms;
      entry.n += 1;
      spent.set(kind, entry);
    });
    const counted = async <T>(work: () => Promise<T>) => {
      statements = 0;
      const start = performance.now();
      const result = await work();
      return { result, ms: performance.now() - start, statements };
    };
    /** 10,000 products in `category`, by ten batches of 1,000 creates: each batch's time and statements. */
    const create10k = async (category: string) => {
      const runs: { ms: number; statements: number }[] = [];
      for (let run = 0; run < 10; run += 1) {
        const operations = Array.from({ length: 1000 }, (_, i) => ({
          op: 'create',
          data: { name: `Bench ${run}-${i}`, category, price: (i % 90) + 1, stock: i },
        }));
        const {
          result: res,
          ms,
          statements: n,
        } = await counted(() =>
          t.request('POST', '/api/v2/products/batch', { token: t.adminToken, body: { operations } }),
        );
        if (res.status !== 200) throw new Error(res.text);
        runs.push({ ms, statements: n });
      }
      return runs;
    };
    const batches = await create10k('bench');
    const batchMs = batches.slice(10 - RUNS).map((run) => run.ms);
    const batchStatements = batches.at(-1)!.statements;
    const filterMs: number[] = [];
    let filterStatements = 0;
    for (let run = 0; run < RUNS; run += 1) {
      spent.clear();
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
    const kindsOf = (times: typeof spent) =>
      [...times]
        .sort((a, b) => b[1].ms - a[1].ms)
        .slice(0, 6)
        .map(([kind, { ms, n }]) => `    ${ms.toFixed(0)} ms in ${n} × ${kind}`)
        .join('\n');
    const filterKinds = kindsOf(spent);
    const exportMs: number[] = [];
    let rows = 0;
    for (let run = 0; run < RUNS; run += 1) {
      const start = performance.now();
      const res = await fetch(`${t.url}/api/v2/products?category=bench&format=csv`);
      rows = (await res.text()).split('\n').length - 2;
      exportMs.push(performance.now() - start);
    }
    // DELETE by filter: each run deletes 10,000 rows of its own (to the trash, with their events and revisions).
    const deleteMs: number[] = [];
    let deleteStatements = 0;
    for (let run = 0; run < RUNS; run += 1) {
      await create10k(`bench-delete-${run}`);
      spent.clear();
      const {
        result: res,
        ms,
        statements: n,
      } = await counted(() =>
        t.request('DELETE', `/api/v2/products?category=bench-delete-${run}`, {
          token: t.adminToken,
          headers: { prefer: 'max-affected=10000' },
        }),
      );
      if (res.status !== 200 || res.body.affected !== 10000) throw new Error(res.text);
      deleteMs.push(ms);
      deleteStatements = n;
    }
    const deleteKinds = kindsOf(spent);
    console.log(
      `${dialect.name} (load ${await loadavg()}): batch of 1,000 creates ${median(batchMs).toFixed(0)} ms ` +
        `(${(batchStatements / 1000).toFixed(2)} statements a row); write by filter of 10,000 rows ` +
        `${median(filterMs).toFixed(0)} ms (${(filterStatements / 10000).toFixed(2)} statements a row); ` +
        `CSV export of ${rows} rows ${median(exportMs).toFixed(0)} ms; DELETE by filter of 10,000 rows ` +
        `${median(deleteMs).toFixed(0)} ms (${(deleteStatements / 10000).toFixed(2)} statements a row)\n  the write by filter's last run, database time:\n${filterKinds}` +
        `\n  the DELETE by filter's last run, database time:\n${deleteKinds}`,
    );
    await t.close();
  }
