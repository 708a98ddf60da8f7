/**
 * An import and an export of N products against the service laid out as production runs it (DECISIONS §16,
 * §18 "Cost"): `node bench/bulk-processes.ts [--rows 1000000] [--dialect postgres|sqlite] [--runs 1]
 * [--w1-runs 3] [--seconds 5] [--connections 32] [--layout split|single]`.
 *
 * Creates its own database (dropped at the end), migrates and seeds 1,000 users (`content-service migrate`,
 * `seed`), then starts `bin/content-service.js serve --role api` and `... serve --role worker` as separate
 * processes with the `start` script's node flags and environment (MALLOC_ARENA_MAX), `NODE_ENV=production`
 * (`--layout single`: one `serve` process with both roles, as `npm start`). The API process is pinned to
 * core 0, the worker and this process (autocannon) to core 1 when `taskset` and two cores exist; PostgreSQL
 * runs on every core. Per run: writes a CSV of N products, measures W1 (bench/suite/workloads.ts, autocannon,
 * `--w1-runs` runs of `--seconds`) idle, uploads the CSV to the API process, measures W1 run after run while
 * the worker writes the job, W1 idle again, then streams the CSV export of the rows. VmRSS of each process is
 * sampled every 150 ms (VmHWM reset at each phase through /proc/PID/clear_refs), and each process writes its
 * `process.memoryUsage()` every 200 ms (bench/suite/memory-probe.ts) to tell heap from external and native.
 */
import {
  createReadStream,
  createWriteStream,
  existsSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { spawnSync } from 'node:child_process';
import { cpus } from 'node:os';
import { resolve } from 'node:path';
import { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { createBenchDatabase, mintToken, type Dialect } from './suite/databases.ts';
import { median, runLoad } from './suite/load.ts';
import {
  cpuMillis,
  currentRss,
  freePort,
  loadAverage,
  moveToLoadCore,
  pinLoadGenerator,
  postgresCpuTracker,
  runCli,
  startProcess,
  type ServerProcess,
} from './suite/processes.ts';
import { adminTokenOf, serviceEnv } from './suite/alternate.ts';
import { serverArgs, serverEnv } from './suite/server-command.ts';
import { standardContext, WORKLOADS } from './suite/workloads.ts';

const { values: args } = parseArgs({
  options: {
    rows: { type: 'string', default: '1000000' },
    dialect: { type: 'string', default: 'postgres' },
    runs: { type: 'string', default: '1' },
    'w1-runs': { type: 'string', default: '3' },
    seconds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '32' },
    /** W1 at a fixed rate (requests/s) instead of a closed loop of `--connections`. */
    rate: { type: 'string' },
    layout: { type: 'string', default: 'split' },
    /** Every process on every core (default: the API on core 0, the worker and autocannon on core 1). */
    'no-pin': { type: 'boolean', default: false },
  },
});
const ROWS = Number(args.rows);
const DIALECT = args.dialect as Dialect;
const SECONDS = Number(args.seconds);
const CONNECTIONS = Number(args.connections);
const MB = 2 ** 20;
const load = () => loadAverage().join(' ');
const say = (line: string) => console.log(`${new Date().toISOString().slice(11, 19)} ${line}`);

/** A CSV of N products, ~128 bytes a row (bench/bulk.ts's rows), their skus and category this run's own. */
async function writeCsv(file: string, run: number): Promise<void> {
  const out = createWriteStream(file);
  out.write('name,category,price,stock,sku,description\n');
  for (let i = 0; i < ROWS; i += 1) {
    const line = `Imported product ${i},bulk-${run},${(1 + (i % 9000) / 100).toFixed(2)},${i % 500},R${run}-SKU-${i},A plain description of imported product number ${i} for the benchmark\n`;
    if (!out.write(line)) await new Promise<void>((done) => out.once('drain', () => done()));
  }
  out.end();
  await finished(out);
}

interface Proc {
  role: string;
  server: ServerProcess;
  probe: string;
}

/** Peak VmRSS sampled every 150 ms, VmHWM since the phase began, and the probe's breakdown at its peak. */
function watch(procs: Proc[], database: string): () => string[] {
  const started = Date.now();
  const cpu = new Map(procs.map((p) => [p.role, cpuMillis(p.server.pid)]));
  const postgres = DIALECT === 'postgres' ? postgresCpuTracker(database) : undefined;
  const peak = new Map(procs.map((p) => [p.role, currentRss(p.server.pid)]));
  for (const p of procs) {
    try {
      writeFileSync(`/proc/${p.server.pid}/clear_refs`, '5'); // resets VmHWM to the current RSS
    } catch {
      // not allowed here: VmHWM is then the peak since the process started
    }
  }
  const timer = setInterval(() => {
    for (const p of procs) peak.set(p.role, Math.max(peak.get(p.role)!, currentRss(p.server.pid)));
  }, 150);
  return () => {
    clearInterval(timer);
    const ended = Date.now();
    const share = (ms: number) => `${Math.round((ms / (ended - started)) * 100)}%`;
    const shares = procs.map((p) => `${p.role} ${share(cpuMillis(p.server.pid) - cpu.get(p.role)!)}`);
    if (postgres) shares.push(`PostgreSQL ${share(postgres.stop())}`);
    return [
      `CPU (of one core): ${shares.join(', ')}`,
      ...procs.map((p) => {
        const hwm = Number(/^VmHWM:\s+(\d+)/m.exec(readFileSync(`/proc/${p.server.pid}/status`, 'utf8'))?.[1] ?? 0);
        type Usage = Record<'t' | 'rss' | 'heapTotal' | 'heapUsed' | 'external' | 'arrayBuffers', number>;
        const samples = readFileSync(p.probe, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as Usage)
          .filter((s) => s.t >= started && s.t <= ended);
        const top = samples.reduce<Usage | undefined>((a, b) => (a && a.rss >= b.rss ? a : b), undefined);
        const mb = (n: number) => Math.round(n / MB);
        const maxOf = (key: keyof Usage) => mb(Math.max(0, ...samples.map((s) => s[key])));
        const breakdown = top
          ? `; at its peak heap ${mb(top.heapUsed)}/${mb(top.heapTotal)} MB, external ${mb(top.external)} (arrayBuffers ${mb(top.arrayBuffers)}); max heapTotal ${maxOf('heapTotal')}, external ${maxOf('external')}`
          : '';
        return `${p.role} peak RSS ${mb(peak.get(p.role)!)} MB (VmHWM ${Math.round(hwm / 1024)} MB)${breakdown}`;
      }),
    ];
  };
}

/** Waits (up to 10 minutes) until the process uses under 5% of a core over 2 s; returns the seconds waited. */
async function quiet(pid: number): Promise<number> {
  const start = performance.now();
  for (let before = cpuMillis(pid); performance.now() - start < 600_000;) {
    await new Promise((wait) => setTimeout(wait, 2000));
    const now = cpuMillis(pid);
    if (now - before < 100) break;
    before = now;
  }
  return (performance.now() - start) / 1000;
}

async function w1(url: string, token: string) {
  const context = standardContext(url, token);
  const w = WORKLOADS.find((workload) => workload.id === 'W1')!;
  await w.check(context);
  const { requests } = await w.prepare(context);
  return async () => {
    const rate = args.rate === undefined ? undefined : Number(args.rate);
    const figures = await runLoad({ url, connections: CONNECTIONS, seconds: SECONDS, requests, rate });
    if (figures.errors > 0) throw new Error(`W1: ${figures.errors} errors ${JSON.stringify(figures.statuses)}`);
    return figures;
  };
}

async function main(): Promise<void> {
  if (!args['no-pin']) pinLoadGenerator();
  const db = await createBenchDatabase(DIALECT);
  const procs: Proc[] = [];
  try {
    const base = serviceEnv(db.url, 0);
    const database = new URL(db.url).pathname.slice(1);
    runCli(['migrate'], { ...base, DATABASE_URL: db.url });
    runCli(['seed', '--users', '1000', '--posts-per-user', '0', '--products', '0', '--orders', '0'], {
      DATABASE_URL: db.url,
      DEMO_DATA: 'false',
    });
    const token = mintToken(db.url, 1, base);
    const roles =
      args.layout === 'single'
        ? [['all', 'serve']]
        : [
            ['api', 'serve', '--role', 'api'],
            ['worker', 'serve', '--role', 'worker'],
          ];
    for (const [role, ...command] of roles) {
      const port = await freePort();
      const probe = resolve(`data/bench/bulk-processes-${role}.memory.ndjson`);
      rmSync(probe, { force: true });
      const nodeArgs = serverArgs().filter((arg) => arg !== 'serve');
      const server = await startProcess(
        [...nodeArgs, ...command],
        {
          ...serverEnv(),
          ...serviceEnv(db.url, port),
          // A 1 M-row upload takes longer than the default 30 s (docs/BULK.md).
          REQUEST_TIMEOUT_MS: '600000',
          NODE_OPTIONS: `--import=${resolve('bench/suite/memory-probe.ts')}`,
          MEMORY_PROBE_FILE: probe,
        },
        port,
        `data/bench/bulk-processes-${role}.log`,
        '/readyz',
      );
      if (args['no-pin']) spawnSync('taskset', ['-a', '-cp', `0-${cpus().length - 1}`, String(server.pid)]);
      else if (role === 'worker') moveToLoadCore(server.pid);
      procs.push({ role: role!, server, probe });
    }
    const api = procs[0]!.server.url;
    const loadW1 = await w1(api, token);
    const admin = await adminTokenOf(api);
    await loadW1(); // warm-up
    say(
      `${DIALECT}, ${args.layout} layout (${procs.map((p) => `${p.role} pid ${p.server.pid}`).join(', ')}); ${ROWS} rows`,
    );

    for (let run = 1; run <= Number(args.runs); run += 1) {
      const file = `/tmp/bulk-processes-${ROWS}-${run}.csv`;
      if (!existsSync(file)) await writeCsv(file, run);
      const idle: number[] = [];
      const idleRuns = async () => {
        const stopIdle = watch(procs, database);
        for (let i = 0; i < Number(args['w1-runs']); i += 1) idle.push((await loadW1()).p99);
        say(`  W1 idle: ${stopIdle()[0]}`);
      };
      await idleRuns();
      say(`run ${run}: W1 idle p99 ${idle.join(', ')} ms (load ${load()})`);

      let stop = watch(procs, database);
      const start = performance.now();
      const uploaded = await fetch(`${api}/api/v2/imports?resource=products&mode=create`, {
        method: 'POST',
        headers: { authorization: `Bearer ${admin}`, 'content-type': 'text/csv' },
        body: Readable.toWeb(createReadStream(file)) as ReadableStream,
        duplex: 'half',
      } as RequestInit);
      if (uploaded.status !== 202) throw new Error(`upload: ${uploaded.status} ${await uploaded.text()}`);
      const uploadSeconds = (performance.now() - start) / 1000;
      say(`upload of ${(statSync(file).size / 1e6).toFixed(0)} MB: ${uploadSeconds.toFixed(1)} s (load ${load()})`);
      for (const line of stop()) say(`  upload: ${line}`);

      stop = watch(procs, database);
      const location = uploaded.headers.get('location')!;
      let doneAt: number | undefined;
      let job: { status: string; rows: Record<string, number> } | undefined;
      const polled = (async () => {
        for (;;) {
          const answer = await fetch(api + location, { headers: { authorization: `Bearer ${admin}` } });
          job = (await answer.json()) as typeof job;
          if (['done', 'failed', 'cancelled'].includes(job!.status)) return (doneAt = performance.now());
          await new Promise((wait) => setTimeout(wait, 500));
        }
      })();
      const during: number[] = [];
      const duringLoad: string[] = [];
      while (doneAt === undefined) {
        const figures = await loadW1();
        // A run the import ended during is partly idle: left out.
        if (doneAt === undefined) {
          during.push(figures.p99);
          duringLoad.push(String(loadAverage()[0]));
        }
      }
      await polled;
      const importSeconds = (doneAt - start) / 1000;
      say(
        `import: ${job!.status} ${JSON.stringify(job!.rows)} in ${importSeconds.toFixed(1)} s (upload included), ` +
          `${Math.round(ROWS / importSeconds)} rows/s (load ${load()})`,
      );
      for (const line of stop()) say(`  import: ${line}`);
      say(`  W1 p99 during the import: ${during.join(', ')} ms (load ${duringLoad.join(', ')})`);

      // The import done, the worker still fans its events out (webhooks, NATS): idle is once it rests.
      const tail = await quiet(procs.at(-1)!.server.pid);
      say(`the worker's CPU fell below 5% of a core ${tail.toFixed(0)} s after the import (load ${load()})`);
      await idleRuns();
      say(`run ${run}: W1 idle p99 after: ${idle.slice(-Number(args['w1-runs'])).join(', ')} ms (load ${load()})`);

      stop = watch(procs, database);
      const exportStart = performance.now();
      const exported = await fetch(`${api}/api/v2/products?category=bulk-${run}&format=csv`, {
        headers: { authorization: `Bearer ${admin}` },
      });
      let lines = 0;
      for await (const chunk of exported.body as unknown as AsyncIterable<Uint8Array>)
        for (const byte of chunk) if (byte === 10) lines += 1;
      const exportSeconds = (performance.now() - exportStart) / 1000;
      say(`export: ${lines - 1} rows in ${exportSeconds.toFixed(1)} s (load ${load()})`);
      for (const line of stop()) say(`  export: ${line}`);
      say(
        `RESULT run ${run} ${DIALECT}: import ${importSeconds.toFixed(1)} s (${Math.round(ROWS / importSeconds)} rows/s, ` +
          `upload ${uploadSeconds.toFixed(1)} s), export ${exportSeconds.toFixed(1)} s; W1 p99 idle median ` +
          `${median(idle)} ms (${idle.join(', ')}), during median ${median(during)} ms (${during.join(', ')}): ` +
          `${(median(during) / median(idle)).toFixed(2)}× (load ${load()})`,
      );
    }
  } finally {
    for (const p of procs.reverse()) await p.server.stop();
    await db.drop();
  }
}

await main();
