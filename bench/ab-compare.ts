/**
 * Two versions of the service on the same data, loaded in alternating short bursts (A B B A ...), so
 * a busy machine slows both alike: `node bench/ab-compare.ts --base DIR [--workloads W1,W3] [--dialect sqlite]`.
 * DIR is another checkout (e.g. `git archive <commit> | tar -x -C DIR` with node_modules linked);
 * B is this working tree (or `--tree DIR`, e.g. a commit of a bisection). Prints successful answers per second and server CPU per answer of each, and B/A.
 * `--rate N` offers a fixed N requests per second instead of as many as answered: the server CPU per answer
 * of each below saturation, and with `--profile` the same number of answers in both profiles (their
 * difference per function is the cost of B's change, per answer). `--pairs N` repeats the comparison on N
 * fresh pairs of processes and prints the median of their ratios: one pair's ratio is not a verdict (an
 * A/A comparison of one tree gave 0.81–1.21 on a 2-core machine, the bench journal (git show b3694ab:bench/journal/2026-11.md), session 35).
 * Both processes of a pair get environments of one size (`AB_PAD`), a random size each pair: the size of
 * a process's environment alone moved the same tree by 3–8 % (suite/alternate.ts, `padEnvironment`).
 * `--collector` starts a local OTLP collector (suite/otlp-sink.ts) and puts its URL where a side's setting
 * says `$COLLECTOR` (`--b-env OTEL_EXPORTER_OTLP_ENDPOINT=$COLLECTOR`). Each side's p99 is the median of its rounds'.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { alternate, environmentBytes, envSettings, serviceEnv, startService } from './suite/alternate.ts';
import { createBenchDatabase, mintToken, runSql, seedStandardData, type Dialect } from './suite/databases.ts';
import { median } from './suite/load.ts';
import { PERF_NODE_OPTIONS, perfAvailable, recordPerf, removeV8Log } from './suite/perf-record.ts';
import { loadAverage, pinLoadGenerator, type ServerProcess } from './suite/processes.ts';
import { startOtlpSink } from './suite/otlp-sink.ts';
import { EXTRA_WORKLOADS, standardContext, WORKLOADS } from './suite/workloads.ts';

const { values } = parseArgs({
  options: {
    base: { type: 'string' },
    tree: { type: 'string', default: '.' },
    workloads: { type: 'string', default: 'W1,W3,W4' },
    dialect: { type: 'string', default: 'sqlite' },
    rounds: { type: 'string', default: '6' },
    seconds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '32' },
    /** Seconds of load on each side before the measured rounds. */
    warmup: { type: 'string', default: '2' },
    /** Fresh process pairs, one after another; with more than one, the median of their ratios is printed too. */
    pairs: { type: 'string', default: '1' },
    /** Offered requests per second (autocannon's overallRate): compare CPU per answer below saturation. */
    rate: { type: 'string' },
    'log-level': { type: 'string', default: 'info' },
    /** A directory for V8 CPU profiles of both (DIR/a, DIR/b), written when they stop: bench/profile-summary.ts reads them. */
    profile: { type: 'string' },
    /**
     * A directory for Linux `perf` recordings of both servers while they are loaded (DIR/a.data, DIR/b.data,
     * DIR/answers.json): bench/perf-split.ts reads them. One pair, one workload.
     */
    perf: { type: 'string' },
    /** Settings for B only, `NAME=value` (repeatable): e.g. `--b-env MALLOC_ARENA_MAX=2` with `--tree` the base. */
    'b-env': { type: 'string', multiple: true, default: [] },
    /** Settings for A only, as `--b-env`: two settings of one feature against each other (both traced, say). */
    'a-env': { type: 'string', multiple: true, default: [] },
    /** A local OTLP collector for the sides, its URL in place of `$COLLECTOR` in their settings. */
    collector: { type: 'boolean', default: false },
    /**
     * Each side on its own database, migrated and seeded by its own tree: a base older than a migration whose
     * triggers B's writes pay (the search documents, say) then pays only its own schema's.
     */
    separate: { type: 'boolean', default: false },
    /** SQL run on B's own database after its seed (`--separate`): e.g. a trigger switched off, to price it. */
    'b-setup': { type: 'string' },
  },
});
if (!values.base) throw new Error('--base DIR is required');
const dialect = values.dialect as Dialect;
const ROUNDS = Number(values.rounds);
const SECONDS = Number(values.seconds);
const CONNECTIONS = Number(values.connections);
const PAIRS = Number(values.pairs);
if (!(Number.isInteger(PAIRS) && PAIRS > 0)) throw new Error('--pairs takes a whole number above 0');
const WARMUP = Number(values.warmup);
if (!(Number.isFinite(WARMUP) && WARMUP >= 0)) throw new Error('--warmup takes seconds, 0 or more');
/** Bytes of environment a pair's processes may add to this one's before their padding (`--a-env`, `--b-env`, the service's own). */
const ENVIRONMENT_ROOM = 16 * 1024;
const RATE = values.rate === undefined ? undefined : Number(values.rate);
if (RATE !== undefined && !(Number.isFinite(RATE) && RATE > 0))
  throw new Error('--rate takes requests per second, above 0');

const PERF_DIR = values.perf === undefined ? undefined : resolve(values.perf);
if (PERF_DIR !== undefined) {
  if (PAIRS !== 1 || values.workloads.includes(',')) throw new Error('--perf records one pair on one workload');
  if (values.profile) throw new Error('--perf and --profile are one or the other');
  if (!perfAvailable()) throw new Error('--perf needs Linux perf (Debian package linux-perf)');
}

pinLoadGenerator();
const sink = values.collector ? await startOtlpSink() : undefined;
const withCollector = (settings: Record<string, string>) =>
  Object.fromEntries(
    Object.entries(settings).map(([name, value]) => [name, value.replace('$COLLECTOR', sink?.url ?? '')]),
  );
const database = await createBenchDatabase(dialect);
const own = values.separate ? await createBenchDatabase(dialect) : undefined;
try {
  // Seeded (and the token minted) by the base, which starts first: a migration only this tree has (a new table) is applied
  // when B starts; the other way round the base would refuse a database with a migration it lacks.
  seedStandardData(database.url, resolve(values.base));
  if (own) seedStandardData(own.url, resolve(values.tree));
  if (values['b-setup']) {
    if (!own) throw new Error('--b-setup needs --separate');
    await runSql(own.url, values['b-setup']);
  }
  const token = mintToken(database.url, 1, serviceEnv(database.url, 0), resolve(values.base));
  const logLevel = values['log-level'];
  const profiled = (side: string) =>
    values.profile
      ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${resolve(values.profile, side)}` }
      : PERF_DIR
        ? { NODE_OPTIONS: PERF_NODE_OPTIONS }
        : process.env.AB_NODE_OPTIONS
          ? { NODE_OPTIONS: process.env.AB_NODE_OPTIONS }
          : undefined;
  const workloads = [...WORKLOADS, ...EXTRA_WORKLOADS].filter((w) => values.workloads.split(',').includes(w.id));
  const ratios = new Map<string, number[]>(workloads.map((w) => [w.id, []]));
  /** B's CPU an answer over A's: the verdict of a `--rate` comparison, where both answer as many. */
  const cpuRatios = new Map<string, number[]>(workloads.map((w) => [w.id, []]));
  const p99Ratios = new Map<string, number[]>(workloads.map((w) => [w.id, []]));
  // Each pair is two fresh processes: how fast a process runs one code varies from start to start (JIT
  // decisions, memory layout), often more than a change does, so a verdict needs the median of several pairs.
  for (let pair = 1; pair <= PAIRS; pair += 1) {
    // Both environments of one size, a random one each pair (suite/alternate.ts, `padEnvironment`): room for
    // the service's own settings and the sides' own, above this process's environment.
    const padded = environmentBytes(process.env) + ENVIRONMENT_ROOM + Math.floor(Math.random() * 4096);
    const side = (name: string, tree: string, settings: Record<string, string>) =>
      startService(resolve(tree), name, name === 'b' && own ? own.url : database.url, {
        logLevel,
        extra: { ...profiled(name), ...settings },
        environmentBytes: padded,
      });
    const servers = {
      A: await side('a', values.base, withCollector(envSettings(values['a-env'], '--a-env'))),
      B: await side('b', values.tree, withCollector(envSettings(values['b-env'], '--b-env'))),
    };
    try {
      for (const workload of workloads) {
        const prepare = (server: ServerProcess) => workload.prepare(standardContext(server.url, token));
        const prepared = { A: await prepare(servers.A), B: await prepare(servers.B) };
        const recordings = PERF_DIR
          ? [recordPerf(servers.A.pid, PERF_DIR, 'a'), recordPerf(servers.B.pid, PERF_DIR, 'b')]
          : [];
        const { A, B } = await alternate(
          { A: { server: servers.A, ...prepared.A }, B: { server: servers.B, ...prepared.B } },
          {
            rounds: ROUNDS,
            seconds: SECONDS,
            connections: CONNECTIONS,
            rate: RATE,
            warmup: WARMUP,
          },
        );
        for (const recording of recordings) await recording.stop();
        if (PERF_DIR) {
          // What perf-split.ts needs to turn shares of samples into µs an answer.
          const answers = {
            workload: workload.id,
            a: { cpuUs: A.cpuUs, rps: A.rps },
            b: { cpuUs: B.cpuUs, rps: B.rps },
          };
          writeFileSync(resolve(PERF_DIR, 'answers.json'), JSON.stringify(answers, null, 2));
        }
        ratios.get(workload.id)!.push(B.rps / A.rps);
        cpuRatios.get(workload.id)!.push(B.cpuUs / A.cpuUs);
        p99Ratios.get(workload.id)!.push(B.p99 / A.p99);
        const [load1] = loadAverage();
        console.log(
          `${PAIRS > 1 ? `pair ${pair} ` : ''}${dialect} ${workload.id}: A ${Math.round(A.rps)} req/s ${Math.round(A.cpuUs)} µs/req p99 ${A.p99} ms | B ${Math.round(B.rps)} req/s ${Math.round(B.cpuUs)} µs/req p99 ${B.p99} ms | B/A req/s ${(B.rps / A.rps).toFixed(2)}, CPU ${(B.cpuUs / A.cpuUs).toFixed(2)}, p99 ${(B.p99 / A.p99).toFixed(2)} | load ${load1.toFixed(2)}`,
        );
      }
    } finally {
      await servers.A.stop();
      await servers.B.stop();
      if (PERF_DIR) {
        removeV8Log(resolve(values.base), servers.A.pid);
        removeV8Log(resolve(values.tree), servers.B.pid);
      }
    }
  }
  if (PAIRS > 1) {
    const summary = (list: number[]) => {
      const sorted = list.sort((a, b) => a - b);
      return `median ${median(sorted).toFixed(3)} of ${PAIRS} pairs (${sorted.map((r) => r.toFixed(2)).join(', ')})`;
    };
    for (const [id, list] of ratios) {
      console.log(
        `${dialect} ${id}: B/A req/s ${summary(list)}; CPU an answer ${summary(cpuRatios.get(id)!)}; p99 ${summary(p99Ratios.get(id)!)}`,
      );
    }
  }
  if (sink) {
    const { requests, bytes } = await sink.received();
    console.log(`the local collector received ${requests} export requests, ${(bytes / 1e6).toFixed(1)} MB`);
  }
} finally {
  await database.drop();
  await own?.drop();
  sink?.stop();
}
