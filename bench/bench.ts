/**
 * The benchmark suite of issue 9: `npm run bench [-- options]`. Not part of `npm test`.
 *
 * Seeds the standard data set into a fresh SQLite file and a fresh PostgreSQL database (CLI `seed`),
 * starts the server as a user would (`node src/cli.ts serve`) on each, plus a raw node:http server
 * (the ceiling), loads every workload with autocannon and writes bench/RESULTS.md. See bench/README.md.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { BENCH_DIR, createBenchDatabase, mintToken, seedStandardData, type Dialect } from './suite/databases.ts';
import { median, runLoad, type LoadFigures, type LoadRequest } from './suite/load.ts';
import {
  cpuMillis,
  currentRss,
  freePort,
  SERVER_DIR,
  loadAverage,
  pinLoadGenerator,
  pinPostgres,
  PINNING,
  postgresCpuTracker,
  sampleRss,
  startProcess,
  waitForQuiet,
  type ServerProcess,
} from './suite/processes.ts';
import { REFERENCE_WORKLOADS, startHandWritten, type HandWritten } from './suite/hand-written.ts';
import { CEILING_SHARE_WORKLOADS } from './suite/targets.ts';
import { serverArgs } from './suite/server-command.ts';
import { ratioLines, renderResults, writeResults } from './suite/report.ts';
import type { ResultRow, SoakResult } from './suite/targets.ts';
import { standardContext, WORKLOADS, type Workload, type WorkloadContext } from './suite/workloads.ts';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    workloads: { type: 'string', default: WORKLOADS.map((w) => w.id).join(',') },
    dialects: { type: 'string', default: 'sqlite,postgres' },
    runs: { type: 'string' },
    duration: { type: 'string' },
    warmup: { type: 'string' },
    connections: { type: 'string', default: '32' },
    'log-level': { type: 'string', default: 'info' },
    soak: { type: 'string', default: '0' },
    'wait-quiet': { type: 'string', default: '0' },
    'cpu-prof': { type: 'string' },
    out: { type: 'string' },
    'node-options': { type: 'string', default: '' },
    shedding: { type: 'boolean', default: false },
    // `--no-reference` skips the hand-written reference on PostgreSQL, `--no-bare` the bare stack.
    reference: { type: 'boolean', default: true },
    bare: { type: 'boolean', default: true },
    // The bare stack runs as `node bare-server.ts`, as a user would; `--bare-flags` gives it the service's V8 flags.
    'bare-flags': { type: 'boolean', default: false },
    // PostgreSQL's processes on the server's core while its workloads run (issue 37: the database's CPU
    // counts as in a one-core container holding both); `--no-pin-postgres` leaves them on every core.
    'pin-postgres': { type: 'boolean', default: true },
  },
  allowNegative: true,
});

const quick = values.quick;
const RUNS = Number(values.runs ?? (quick ? 1 : 3));
const SECONDS = Number(values.duration ?? (quick ? 2 : 10));
const WARMUP = Number(values.warmup ?? (quick ? 1 : 3));
const CONNECTIONS = Number(values.connections);
const LOG_LEVEL = values['log-level'];
const SOAK = Number(values.soak);
const selected = new Set(values.workloads.split(',').map((w) => w.trim().toUpperCase()));
const workloads = WORKLOADS.filter((w) => selected.has(w.id));
const dialects = values.dialects.split(',').filter((d): d is Dialect => d === 'sqlite' || d === 'postgres');
const complete = !quick && workloads.length === WORKLOADS.length && dialects.length === 2;
// A partial or quick run must not overwrite the recorded figures.
const OUT = values.out ?? (complete ? 'bench/RESULTS.md' : `${BENCH_DIR}/RESULTS.partial.md`);

const SECRET = 'bench-secret-bench-secret-bench-secret-0123';
/** The server's environment: production defaults except what a benchmark must set. */
const serverEnv = (url: string, port: number): Record<string, string> => ({
  NODE_ENV: 'production',
  HOST: '127.0.0.1',
  PORT: String(port),
  DATABASE_URL: url,
  LOG_LEVEL,
  DEMO_DATA: 'false',
  JWT_SECRET: SECRET,
  // One token serves the whole run (it would expire after the default 15 minutes).
  JWT_TTL_SECONDS: '86400',
  ADMIN_PASSWORD: 'bench-admin-password',
  // Raised, not removed: every request still goes through the limiter with the token's subject as key.
  RATE_LIMIT_MAX: '1000000000',
  // A closed loop of 32 connections keeps the server saturated by construction: shedding would turn
  // part of the load into quick 503s and measure the shedder. `--shedding` keeps the default.
  ...(values.shedding ? {} : { OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0' }),
  ...(values['node-options'] ? { NODE_OPTIONS: values['node-options'] } : {}),
});
const TOKEN_USER = 1;

const say = (line: string) => console.log(line);
const rows: ResultRow[] = [];
const soaks: SoakResult[] = [];
const ceilingRuns: Measured[] = [];

/** `pgDatabase`: also the CPU time of the PostgreSQL processes serving that database, per answer. */
async function measureRuns(
  url: string,
  requests: LoadRequest[],
  okStatus: ((s: number) => boolean) | undefined,
  pid: number,
  pgDatabase?: string,
): Promise<Measured> {
  return (await measureInTurn([{ url, pid, requests, okStatus }], pgDatabase))[0]!;
}

interface Target {
  url: string;
  pid: number;
  requests: LoadRequest[];
  okStatus: ((s: number) => boolean) | undefined;
}

/**
 * Loads servers in turn: each warms up, then run 1 of each, run 2 of each, and so on. On a shared
 * machine whose load moves from minute to minute, servers compared with each other (the service and
 * the reference) then meet the same load, where whole blocks of runs minutes apart did not (session 7:
 * the three runs of one workload spread by up to 45%). Each server's CPU (and PostgreSQL's while it is
 * loaded) is counted over its own runs only.
 */
async function measureInTurn(targets: Target[], pgDatabase?: string): Promise<Measured[]> {
  for (const target of targets)
    await runLoad({
      url: target.url,
      connections: CONNECTIONS,
      seconds: WARMUP,
      requests: target.requests,
      okStatus: target.okStatus,
    });
  const samplers = targets.map((target) => sampleRss(target.pid));
  const totals = targets.map(() => ({ runs: [] as LoadFigures[], cpuMillis: 0, pgMillis: 0 }));
  for (let i = 0; i < RUNS; i += 1) {
    for (const [k, target] of targets.entries()) {
      const cpuBefore = cpuMillis(target.pid);
      const pgCpu = pgDatabase ? postgresCpuTracker(pgDatabase) : undefined;
      totals[k]!.runs.push(
        await runLoad({
          url: target.url,
          connections: CONNECTIONS,
          seconds: SECONDS,
          requests: target.requests,
          okStatus: target.okStatus,
        }),
      );
      totals[k]!.cpuMillis += cpuMillis(target.pid) - cpuBefore;
      if (pgCpu) totals[k]!.pgMillis += pgCpu.stop();
    }
  }
  return totals.map(({ runs, cpuMillis: cpu, pgMillis }, k) => {
    const answered = runs.reduce((sum, r) => sum + r.answered, 0);
    const perAnswer = (millis: number) => (millis * 1000) / answered;
    return {
      runs,
      rssPeak: samplers[k]!(),
      cpuUs: perAnswer(cpu),
      ...(pgDatabase ? { pgCpuUs: perAnswer(pgMillis) } : {}),
    };
  });
}

interface Measured {
  runs: LoadFigures[];
  rssPeak: number;
  cpuUs: number;
  pgCpuUs?: number;
}

function summarize(
  dialect: ResultRow['dialect'],
  workload: string,
  title: string,
  { runs, rssPeak, cpuUs, pgCpuUs }: Measured,
  note?: string,
): ResultRow {
  const row: ResultRow = {
    dialect,
    workload,
    title,
    rps: median(runs.map((r) => r.rps)),
    p50: median(runs.map((r) => r.p50)),
    p99: median(runs.map((r) => r.p99)),
    errors: runs.reduce((sum, r) => sum + r.errors, 0),
    rssPeak,
    cpuUs,
    ...(pgCpuUs !== undefined ? { pgCpuUs } : {}),
    ...(note ? { note } : {}),
  };
  const statuses = runs.map((r) => JSON.stringify(r.statuses)).join(' ');
  say(
    `  ${dialect} ${workload}: ${Math.round(row.rps)} req/s, p50 ${row.p50} ms, p99 ${row.p99} ms, errors ${row.errors}, RSS ${(rssPeak / 2 ** 20).toFixed(0)} MB, CPU ${Math.round(cpuUs)} µs/req${pgCpuUs !== undefined ? `, PostgreSQL CPU ${Math.round(pgCpuUs)} µs/req` : ''}  ${statuses}`,
  );
  return row;
}

/** The raw node:http ceiling, running for the whole bench (idle when not loaded). */
let ceilingServer: ServerProcess | undefined;
const CEILING_REQUESTS: LoadRequest[] = [{ method: 'GET', path: '/' }];

async function measureCeiling(): Promise<void> {
  if (!ceilingServer) {
    const port = await freePort();
    ceilingServer = await startProcess(
      ['bench/suite/ceiling-server.ts'],
      { PORT: String(port) },
      port,
      `${BENCH_DIR}/ceiling.log`,
      '/',
    );
  }
  const measured = await measureRuns(ceilingServer.url, CEILING_REQUESTS, undefined, ceilingServer.pid);
  ceilingRuns.push(measured);
  say(
    `  ceiling: ${measured.runs.map((r) => Math.round(r.rps)).join(', ')} req/s (CPU ${Math.round(measured.cpuUs)} µs/req)`,
  );
}

/** A server to load, with the context its workloads are checked and prepared in. */
interface Subject {
  server: ServerProcess;
  dialect: ResultRow['dialect'];
  context: WorkloadContext;
}

/** One workload on one server, or on several in turn (`measureInTurn`); a row per server. */
async function measureWorkload(subjects: Subject[], workload: Workload, pgDatabase?: string): Promise<ResultRow[]> {
  const notes: (string | undefined)[] = [];
  const targets: Target[] = [];
  for (const { server, dialect, context } of subjects) {
    let note: string | undefined;
    try {
      await workload.check(context);
    } catch (error) {
      note = (error as Error).message;
      say(`  ${dialect} ${workload.id}: ${note}`);
    }
    notes.push(note);
    const prepared = await workload.prepare(context);
    targets.push({ url: server.url, pid: server.pid, requests: prepared.requests, okStatus: prepared.okStatus });
  }
  // The SQLite targets are shares of the ceiling: it is loaded in turn with those workloads too.
  const withCeiling =
    ceilingServer && subjects[0]!.dialect === 'sqlite' && CEILING_SHARE_WORKLOADS.includes(workload.id);
  if (withCeiling)
    targets.push({ url: ceilingServer!.url, pid: ceilingServer!.pid, requests: CEILING_REQUESTS, okStatus: undefined });
  const measured = await measureInTurn(targets, pgDatabase);
  const measuredRows = subjects.map(({ dialect }, k) =>
    summarize(dialect, workload.id, workload.title, measured[k]!, notes[k]),
  );
  // The service against each server it ran in turn with (the reference or the ceiling, the bare stack): run by run.
  const bases = [...subjects.slice(1).map((s) => s.dialect), ...(withCeiling ? ['ceiling'] : [])];
  for (const [k, name] of bases.entries()) {
    const ratio = median(measured[0]!.runs.map((run, i) => run.rps / measured[k + 1]!.runs[i]!.rps));
    measuredRows[0]![name === 'bare' ? 'bareRatio' : 'pairedRatio'] = ratio;
  }
  if (withCeiling)
    rows.push(
      summarize('ceiling', workload.id, `fixed JSON, loaded in turn with sqlite ${workload.id}`, measured.at(-1)!),
    );
  return measuredRows;
}

async function soak(server: ServerProcess, dialect: Dialect, context: WorkloadContext): Promise<void> {
  const mix = WORKLOADS.find((w) => w.id === 'W8')!;
  const { requests } = await mix.prepare(context);
  const started = Date.now();
  const rss: [number, number][] = [];
  const sample = () => rss.push([Math.round((Date.now() - started) / 1000), currentRss(server.pid)]);
  const timer = setInterval(sample, 15_000);
  const figures = await runLoad({ url: server.url, connections: CONNECTIONS, seconds: SOAK, requests });
  clearInterval(timer);
  sample();
  soaks.push({ dialect, seconds: SOAK, rps: figures.rps, p99: figures.p99, errors: figures.errors, rss });
  say(
    `  ${dialect} soak ${SOAK}s: ${Math.round(figures.rps)} req/s, p99 ${figures.p99} ms, RSS ${rss.map(([, b]) => (b / 2 ** 20).toFixed(0)).join(' ')} MB`,
  );
}

async function benchDialect(dialect: Dialect, seeding: string[]): Promise<void> {
  const database = await createBenchDatabase(dialect);
  let unpin = () => {};
  try {
    let started = Date.now();
    say(`\n## ${dialect}: seeding the standard data set`);
    seedStandardData(database.url);
    seeding.push(`${dialect} seeded in ${Math.round((Date.now() - started) / 1000)} s`);
    if (dialect === 'postgres' && values['pin-postgres']) unpin = pinPostgres();
    const port = await freePort();
    const env = serverEnv(database.url, port);
    const token = mintToken(database.url, TOKEN_USER, env);
    const profiling = values['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${resolve(values['cpu-prof'])}`] : [];
    started = Date.now();
    const log = `${BENCH_DIR}/server-${dialect}.log`;
    const server = await startProcess([...profiling, ...serverArgs(SERVER_DIR)], env, port, log, '/readyz', SERVER_DIR);
    say(`## ${dialect}: server ${server.pid} ready in ${Date.now() - started} ms`);
    const context = standardContext(server.url, token, TOKEN_USER);
    const pgDatabase = dialect === 'postgres' ? new URL(database.url).pathname.slice(1) : undefined;
    const service: Subject = { server, dialect, context };
    // The reference and the bare stack answer W1–W4 in turn with the service, before any write workload has run.
    let besides = pgDatabase ? await startBesides(database.url, env) : [];
    const besideRows: ResultRow[] = [];
    const lastBeside = workloads.findLastIndex((w) => REFERENCE_WORKLOADS.includes(w.id));
    try {
      for (const [index, workload] of workloads.entries()) {
        const subjects: Subject[] = [service];
        if (REFERENCE_WORKLOADS.includes(workload.id)) {
          for (const { kind, server: other } of besides)
            subjects.push({ server: other, dialect: kind, context: { ...context, baseUrl: other.url } });
        }
        const [own, ...others] = await measureWorkload(subjects, workload, pgDatabase);
        rows.push(own!);
        besideRows.push(...others);
        if (index === lastBeside) {
          await Promise.all(besides.map(({ server: other }) => other.stop()));
          besides = [];
        }
      }
      if (SOAK > 0) await soak(server, dialect, context);
    } finally {
      await server.stop();
      await Promise.all(besides.map(({ server: other }) => other.stop()));
    }
    // The reference's rows, then the bare stack's.
    rows.push(
      ...besideRows.filter((r) => r.dialect === 'reference'),
      ...besideRows.filter((r) => r.dialect === 'bare'),
    );
  } finally {
    unpin();
    await database.drop();
  }
}

/**
 * The hand-written stacks selected (`--no-reference`, `--no-bare`) on the same database, same data and
 * core: the reference with the service's token and flags; the bare stack as a user runs it (`--bare-flags`).
 */
async function startBesides(url: string, env: Record<string, string>) {
  if (!workloads.some((w) => REFERENCE_WORKLOADS.includes(w.id))) return [];
  // The service's V8 flags (from `npm start`) and NODE_OPTIONS: the ratio compares code, not runtime settings.
  const serviceFlags = serverArgs(SERVER_DIR).filter((arg) => arg.startsWith('--'));
  const kinds: [HandWritten, boolean, string[], string][] = [
    ['reference', values.reference, serviceFlags, 'Fastify + pg + Mercurius loaders, token, totals, links, access log'],
    ['bare', values.bare, values['bare-flags'] ? serviceFlags : [], 'Fastify + pg + Mercurius loaders, nothing else'],
  ];
  const besides: { kind: HandWritten; server: ServerProcess }[] = [];
  for (const [kind, wanted, flags, what] of kinds) {
    if (!wanted) continue;
    const port = await freePort();
    const started = Date.now();
    const log = `${BENCH_DIR}/server-${kind}.log`;
    const server = await startHandWritten(kind, url, { ...env, PORT: String(port) }, port, flags, log);
    besides.push({ kind, server });
    say(`## ${kind} (${what}): server ${server.pid} ready in ${Date.now() - started} ms`);
  }
  return besides;
}

async function main(): Promise<void> {
  mkdirSync(BENCH_DIR, { recursive: true });
  pinLoadGenerator();
  const waitQuiet = Number(values['wait-quiet']);
  const loadBefore = waitQuiet > 0 ? await waitForQuiet(1.5, waitQuiet, say) : loadAverage();
  const started = new Date();
  say(
    `# bench: ${workloads.map((w) => w.id).join(',')} on ${dialects.join(',')}; ${RUNS}×${SECONDS}s after ${WARMUP}s warm-up, ${CONNECTIONS} connections; load ${loadBefore.join(' ')}`,
  );
  const seeding: string[] = [];
  say('## ceiling (raw node:http)');
  await measureCeiling();
  for (const dialect of dialects) await benchDialect(dialect, seeding);
  say('## ceiling again');
  await measureCeiling();
  await ceilingServer?.stop();
  const ceiling = {
    runs: ceilingRuns.flatMap((m) => m.runs),
    rssPeak: Math.max(...ceilingRuns.map((m) => m.rssPeak)),
    cpuUs: median(ceilingRuns.map((m) => m.cpuUs)),
  };
  rows.unshift(summarize('ceiling', '–', 'fixed JSON (196 bytes)', ceiling));
  const settings = [
    `${CONNECTIONS} connections, ${WARMUP} s warm-up then ${RUNS} × ${SECONDS} s per workload`,
    PINNING
      ? `server on core 0, autocannon on core 1 (taskset), PostgreSQL ${values['pin-postgres'] ? 'on core 0 with the server (its every process, while its workloads run)' : 'unpinned'}`
      : 'no taskset: processes not pinned',
    `server: \`node ${values['node-options'] ? `${values['node-options']} ` : ''}${serverArgs(SERVER_DIR).join(' ')}\` (\`npm start\`), NODE_ENV=production, LOG_LEVEL=${LOG_LEVEL} (to a file), token auth on, RATE_LIMIT_MAX raised, ${values.shedding ? 'overload shedding at its default' : 'overload shedding off (OVERLOAD_MAX_EVENT_LOOP_DELAY_MS=0)'}`,
    values.reference && dialects.includes('postgres')
      ? 'reference: bench/reference/reference-server.ts on the same PostgreSQL database, loaded in turn with the service run by run (W1–W4, before the write workloads), same flags, core, token and pool size'
      : 'no reference',
    values.bare && dialects.includes('postgres')
      ? `bare stack: bench/bare/bare-server.ts (no token, log, totals or links) loaded in turn likewise, same core and pool size, ${values['bare-flags'] ? "the service's V8 flags" : 'plain `node` (no V8 flags)'}`
      : 'no bare stack',
  ].join('; ');
  const section = renderResults(rows, soaks, {
    started,
    finished: new Date(),
    loadBefore,
    loadAfter: loadAverage(),
    settings,
    seeding,
  });
  writeResults(OUT, section);
  for (const line of ratioLines(rows)) say(line);
  writeFileSync(
    `${BENCH_DIR}/results-${started.toISOString().replace(/[:.]/g, '-')}.json`,
    JSON.stringify({ rows, soaks }, null, 2),
  );
  say(`\nwrote ${OUT}`);
}

await main();
