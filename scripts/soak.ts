/**
 * Soak: a steady mixed load (REST reads and writes, GraphQL) against one server process for N minutes,
 * sampling the server's resident memory, V8 heap in use and the latency of each window. Fails (exit 1)
 * on any error answer, on heap in use growing after warm-up, on resident memory peaks rising from the
 * first to the last third of the steady run, or on p99 drifting upwards.
 *
 *   npm run soak -- --minutes 10 [--rate 40] [--db sqlite|postgres] [--sample 15] [--out soak.json]
 *
 * Results are recorded in docs/OPERATIONS.md ("Soak").
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { randomUUID } from 'node:crypto';
import { DIALECTS } from '../test/support/dialects.ts';
import { call, openDatabase, percentile, startProcess, tokenFor } from '../test/reliability/harness.test-support.ts';
import { prepareWorld } from '../test/reliability/write-load.test-support.ts';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    rate: { type: 'string', default: '40' },
    db: { type: 'string', default: 'sqlite' },
    sample: { type: 'string', default: '15' },
    out: { type: 'string' },
    'max-rss-growth': { type: 'string', default: '0.1' },
    'max-heap-slope': { type: 'string', default: '0.5' },
  },
});
const minutes = Number(values.minutes);
const rate = Number(values.rate);
const sampleSeconds = Number(values.sample);
const maxRssGrowth = Number(values['max-rss-growth']);
const maxHeapSlope = Number(values['max-heap-slope']);
const dialect = DIALECTS.find((d) => d.name === values.db);
if (!dialect || dialect.skip) throw new Error(`database ${values.db} is not available`);

const database = await dialect.createDatabase();
const db = openDatabase(database.url);
// Shedding off: the soak measures steady behaviour at a rate the service can sustain, not overload.
const server = await startProcess({ DATABASE_URL: database.url, LOG_LEVEL: 'info', REPORT_POLL_MS: '1000' });
// Interrupted (Ctrl-C): stop the server and drop the database rather than leave them behind.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    server.process.kill('SIGKILL');
    void Promise.allSettled([db.destroy(), database.drop()]).then(() => process.exit(130));
  });
}
const world = await prepareWorld(server.url, db, {
  users: 20,
  products: 50,
  stock: 1_000_000_000,
  tag: `soak-${Date.now()}`,
});
const adminToken = await tokenFor(1, 'admin');
const pick = <T>(items: T[]): T => items[Math.floor(Math.random() * items.length)]!;

const GRAPHQL = '{ users(limit: 10) { id name posts(limit: 5) { id title comments(limit: 3) { id text } } } }';

/** One request of the mix; returns its status (0 for no answer). */
async function oneRequest(): Promise<{ status: number; ms: number; kind: string }> {
  const user = pick(world.users);
  const roll = Math.random();
  let kind: string;
  let answer;
  if (roll < 0.3) {
    kind = 'GET products';
    answer = await call(
      server.url,
      'GET',
      `/api/products?limit=20&page=${1 + Math.floor(Math.random() * 3)}&sort=${pick(['price', 'name', '-price'])}`,
    );
  } else if (roll < 0.45) {
    kind = 'GET posts';
    answer = await call(server.url, 'GET', '/api/posts?limit=20', { token: user.token });
  } else if (roll < 0.55) {
    kind = 'GraphQL';
    answer = await call(server.url, 'POST', '/graphql', { token: user.token, body: { query: GRAPHQL } });
    if (answer.body?.errors) answer = { ...answer, status: 599 };
  } else if (roll < 0.62) {
    kind = 'GET orders';
    answer = await call(server.url, 'GET', '/api/orders?limit=10', { token: user.token });
  } else if (roll < 0.75) {
    kind = 'POST order';
    const placed = await call(server.url, 'POST', '/api/orders', {
      token: user.token,
      body: { items: [{ productId: pick(world.products).id, quantity: 1 }] },
      headers: { 'idempotency-key': randomUUID() },
    });
    answer = placed;
    if (placed.status === 201 && Math.random() < 0.5)
      answer = await call(server.url, 'POST', `/api/orders/${placed.body.id}/${pick(['pay', 'cancel'])}`, {
        token: user.token,
      });
  } else if (roll < 0.87) {
    kind = 'POST post';
    answer = await call(server.url, 'POST', `/api/users/${user.id}/posts`, {
      token: user.token,
      body: { title: 'Soak', content: 'A steady write.' },
    });
  } else if (roll < 0.97) {
    kind = 'POST like';
    answer = await call(server.url, 'POST', `/api/comments/${pick(world.commentIds)}/likes`, { token: user.token });
  } else {
    kind = 'report';
    answer = await call(server.url, 'POST', '/api/reports/generate', {
      token: adminToken,
      body: { type: pick(['sales', 'users', 'content']) },
    });
  }
  return { status: answer.status, ms: answer.ms, kind };
}

async function heapMiB(): Promise<number> {
  const res = await call(server.url, 'GET', '/metrics');
  const match = /^nodejs_heap_size_used_bytes (\S+)$/m.exec(String(res.body));
  return match ? Number(match[1]) / 1024 / 1024 : NaN;
}

function rssMiB(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : NaN;
}

/** Least-squares slope of y over x. */
function slope(points: { x: number; y: number }[]): number {
  const n = points.length;
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  const num = points.reduce((s, p) => s + (p.x - mx) * (p.y - my), 0);
  const den = points.reduce((s, p) => s + (p.x - mx) ** 2, 0);
  return den === 0 ? 0 : num / den;
}

interface Sample {
  minute: number;
  rssMiB: number;
  /** V8 heap in use (from /metrics): the leak signal; resident memory also holds what V8 keeps reserved. */
  heapMiB: number;
  requests: number;
  p50: number;
  p99: number;
  errors: number;
  load1: number;
}

const samples: Sample[] = [];
const errors: string[] = [];
let window: number[] = [];
let windowErrors = 0;
const pending = new Set<Promise<void>>();
const started = Date.now();
const loadAtStart = loadavg();
let sent = 0;
let nextSample = started + sampleSeconds * 1000;
console.log(
  `soak: ${minutes} min at ${rate} req/s on ${dialect.name}, server pid ${server.process.pid}, load average ${loadAtStart.map((l) => l.toFixed(2)).join(' ')}`,
);
console.log('minute  rss MiB  heap MiB  requests  p50 ms  p99 ms  errors  load1');

while (Date.now() - started < minutes * 60_000) {
  const due = Math.floor(((Date.now() - started) / 1000) * rate);
  while (sent < due) {
    sent += 1;
    const request = oneRequest().then(({ status, ms, kind }) => {
      if (status >= 200 && status < 300) window.push(ms);
      else {
        windowErrors += 1;
        if (errors.length < 20) errors.push(`${kind}: ${status}`);
      }
      pending.delete(request);
    });
    pending.add(request);
  }
  if (Date.now() >= nextSample) {
    nextSample += sampleSeconds * 1000;
    const sample: Sample = {
      minute: Number(((Date.now() - started) / 60_000).toFixed(2)),
      rssMiB: Number(rssMiB(server.process.pid!).toFixed(1)),
      heapMiB: Number((await heapMiB()).toFixed(1)),
      requests: window.length + windowErrors,
      p50: Math.round(percentile(window, 50)),
      p99: Math.round(percentile(window, 99)),
      errors: windowErrors,
      load1: Number(loadavg()[0]!.toFixed(2)),
    };
    samples.push(sample);
    console.log(
      [
        sample.minute.toFixed(2).padStart(6),
        sample.rssMiB.toFixed(1).padStart(8),
        sample.heapMiB.toFixed(1).padStart(9),
        String(sample.requests).padStart(9),
        String(sample.p50).padStart(7),
        String(sample.p99).padStart(7),
        String(sample.errors).padStart(7),
        sample.load1.toFixed(2).padStart(6),
      ].join(' '),
    );
    window = [];
    windowErrors = 0;
  }
  await new Promise((resolve) => setTimeout(resolve, 20));
}
await Promise.all(pending);

// Warm-up (first 20 % of the run): caches, JIT and pools fill. A leak shows as V8 heap in use growing
// across the steady run. Resident memory is a sawtooth (it climbs with the heap until a major GC, a few
// minutes apart), so a regression over it mostly says where in a cycle the run ended; what a leak raises
// is the envelope: the peak of the last third of the steady run against the peak of the first third.
const steady = samples.slice(Math.floor(samples.length * 0.2));
const third = Math.max(1, Math.floor(steady.length / 3));
const peak = (part: Sample[]) => Math.max(...part.map((s) => s.rssMiB));
const rssPeakFirst = peak(steady.slice(0, third));
const rssPeakLast = peak(steady.slice(-third));
const rssSlope = slope(steady.map((s) => ({ x: s.minute, y: s.rssMiB })));
const heapSlope = slope(steady.map((s) => ({ x: s.minute, y: s.heapMiB })));
const half = Math.floor(steady.length / 2);
const median = (xs: number[]) => percentile(xs, 50);
const p99Early = median(steady.slice(0, half).map((s) => s.p99));
const p99Late = median(steady.slice(half).map((s) => s.p99));
const totalErrors = samples.reduce((s, x) => s + x.errors, 0);
const summary = {
  database: dialect.name,
  minutes,
  ratePerSecond: rate,
  requests: samples.reduce((s, x) => s + x.requests, 0),
  errors: totalErrors,
  rssStartMiB: samples[0]?.rssMiB,
  rssEndMiB: samples.at(-1)?.rssMiB,
  rssSlopeMiBPerMinuteAfterWarmup: Number(rssSlope.toFixed(3)),
  rssPeakFirstThirdMiB: rssPeakFirst,
  rssPeakLastThirdMiB: rssPeakLast,
  heapSlopeMiBPerMinuteAfterWarmup: Number(heapSlope.toFixed(3)),
  p99MedianEarlyMs: p99Early,
  p99MedianLateMs: p99Late,
  loadAverageStart: loadAtStart.map((l) => Number(l.toFixed(2))),
  loadAverageEnd: loadavg().map((l) => Number(l.toFixed(2))),
};
console.log(JSON.stringify(summary, null, 2));
if (errors.length > 0) console.log('first errors:', errors);
if (values.out) writeFileSync(values.out, JSON.stringify({ summary, samples }, null, 2));

server.process.kill('SIGTERM');
await server.exited;
await db.destroy();
await database.drop();

const failures = [
  totalErrors > 0 && `${totalErrors} error answers`,
  rssPeakLast > rssPeakFirst * (1 + maxRssGrowth) &&
    `resident memory peaks grew from ${rssPeakFirst} to ${rssPeakLast} MiB (limit +${maxRssGrowth * 100} %)`,
  heapSlope > maxHeapSlope &&
    `V8 heap in use grows ${heapSlope.toFixed(2)} MiB/min after warm-up (limit ${maxHeapSlope})`,
  p99Late > 2 * p99Early + 50 && `p99 drifted from ${p99Early} ms to ${p99Late} ms`,
].filter(Boolean);
if (failures.length > 0) {
  console.error(`SOAK FAILED: ${failures.join('; ')}`);
  process.exit(1);
}
console.log('soak passed');
process.exit(0);
