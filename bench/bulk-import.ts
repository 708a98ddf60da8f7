// Data in bulk (DECISIONS §18 "Cost"): an import of `--rows` products (CSV, create mode, events on) run by the
// workers of a real server (test/support's; one process, API and workers), then the CSV export of those rows,
// with the process's peak RSS during each (sampled every 100 ms) and the load average.
import { createReadStream, createWriteStream, readFileSync, statSync } from 'node:fs';
import { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { DIALECTS } from '../test/support/dialects.ts';
import { startTestServer } from '../test/support/test-server.ts';

const { values: args } = parseArgs({
  options: { rows: { type: 'string', default: '100000' }, dialect: { type: 'string', default: 'postgres' } },
});
const ROWS = Number(args.rows);
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const peakRss = () => {
  let peak = 0;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 100);
  return () => {
    clearInterval(timer);
    return Math.round(Math.max(peak, process.memoryUsage().rss) / 2 ** 20);
  };
};

const file = `/tmp/bulk-import-${ROWS}.csv`;
const out = createWriteStream(file);
out.write('name,category,price,stock,sku,description\n');
for (let i = 0; i < ROWS; i += 1) {
  const line = `Imported product ${i},bulk-import,${(1 + (i % 9000) / 100).toFixed(2)},${i % 500},SKU-${i},A plain description of imported product number ${i} for the benchmark\n`;
  if (!out.write(line)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
}
out.end();
await finished(out);

const dialect = DIALECTS.find((d) => d.name === args.dialect)!;
const t = await startTestServer(dialect, {
  RATE_LIMIT_MAX: '100000000',
  DATABASE_POOL_SIZE: '4',
  IMPORT_POLL_MS: '50',
});
console.log(`${dialect.name}: ${ROWS} rows, ${(statSync(file).size / 1e6).toFixed(0)} MB CSV; load before ${load()}`);

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
