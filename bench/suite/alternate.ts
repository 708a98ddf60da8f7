import { mkdirSync } from 'node:fs';
import { median, runLoad, type LoadRequest } from './load.ts';
import { BENCH_DIR } from './databases.ts';
import { cpuMillis, freePort, moveToLoadCore, startProcess, writtenBytes, type ServerProcess } from './processes.ts';
import { serverArgs } from './server-command.ts';

/** The environment of a service measured against another: production mode, limits and shedding out of the way. */
export function serviceEnv(url: string, port: number, logLevel = 'info'): Record<string, string> {
  return {
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: String(port),
    DATABASE_URL: url,
    LOG_LEVEL: logLevel,
    DEMO_DATA: 'false',
    JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0123',
    JWT_TTL_SECONDS: '86400',
    ADMIN_PASSWORD: 'bench-admin-password',
    RATE_LIMIT_MAX: '1000000000',
    REPORT_WORKER: 'false',
    OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
  };
}

/** `NAME=value` settings from a repeatable command-line option (`--b-env`), as an environment. */
export function envSettings(settings: readonly string[], option: string): Record<string, string> {
  return Object.fromEntries(
    settings.map((setting) => {
      const at = setting.indexOf('=');
      if (at <= 0) throw new Error(`${option} ${setting}: NAME=value expected`);
      return [setting.slice(0, at), setting.slice(at + 1)];
    }),
  );
}

/** The bytes an environment's variables take on a new process's stack (`NAME=value` and a NUL each). */
export function environmentBytes(env: Readonly<Record<string, string | undefined>>): number {
  let bytes = 0;
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined) bytes += Buffer.byteLength(`${name}=${value}`) + 1;
  }
  return bytes;
}

/**
 * `env` with a variable `AB_PAD` sized so that the environment a child gets (`base`, the parent's, with
 * `env` over it, as `startProcess` merges them) takes exactly `total` bytes. A process's speed depends on
 * where its stack starts, which the size of its environment moves: on session 36's machine the same tree
 * against itself answered 1.00–1.14× as many W1 requests (median 1.03, 5 pairs, 2026-11-28 00:33–00:37
 * UTC, load 1.2–1.5) with 46 bytes more environment on one side, and 0.89–1.01× (median 0.93, 6 pairs,
 * 00:25–00:34, load 0.3–2.1) with 10 bytes more. Both processes of a comparison padded to one total, the
 * variables that switch a feature on (and a port number one digit longer) are not measured with it.
 */
export function padEnvironment(
  base: Readonly<Record<string, string | undefined>>,
  env: Readonly<Record<string, string>>,
  total: number,
): Record<string, string> {
  const unpadded = environmentBytes({ ...base, ...env, AB_PAD: '' });
  if (unpadded > total) throw new Error(`an environment of ${unpadded} bytes does not fit in ${total}`);
  return { ...env, AB_PAD: 'x'.repeat(total - unpadded) };
}

/** Starts the service of checkout `dir` as `npm start` does, on database `url`, with `extra` settings. */
export async function startService(
  dir: string,
  name: string,
  url: string,
  options: {
    logLevel?: string;
    extra?: Record<string, string>;
    /** Pads the process's whole environment to this many bytes (`padEnvironment`). */
    environmentBytes?: number;
  } = {},
): Promise<ServerProcess> {
  const port = await freePort();
  mkdirSync(BENCH_DIR, { recursive: true }); // a PostgreSQL-only run on a fresh clone has not made it
  const settings = { ...serviceEnv(url, port, options.logLevel), ...options.extra };
  const env =
    options.environmentBytes === undefined ? settings : padEnvironment(process.env, settings, options.environmentBytes);
  return startProcess(serverArgs(dir), env, port, `${BENCH_DIR}/ab-${name}.log`, '/readyz', dir);
}

/**
 * `content-service worker` on `url` (the start script's flags, `worker` in place of `serve`), moved to the
 * load generator's core once ready: the API process keeps the server core to itself, as on a machine
 * where the worker runs elsewhere.
 */
export async function startWorkerService(url: string, extra: Record<string, string> = {}): Promise<ServerProcess> {
  const port = await freePort();
  mkdirSync(BENCH_DIR, { recursive: true });
  const args = serverArgs('.').map((arg) => (arg === 'serve' ? 'worker' : arg));
  const started = await startProcess(
    args,
    { ...serviceEnv(url, port), ...extra },
    port,
    `${BENCH_DIR}/ab-worker.log`,
    '/readyz',
  );
  moveToLoadCore(started.pid);
  return started;
}

/** The bench administrator's access token from a running service (`serviceEnv`'s ADMIN_PASSWORD). */
export async function adminTokenOf(baseUrl: string): Promise<string> {
  const answer = await fetch(`${baseUrl}/api/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'admin@example.com', password: serviceEnv('', 0).ADMIN_PASSWORD }),
  });
  if (answer.status !== 200) throw new Error(`POST /api/auth/token: ${answer.status} ${await answer.text()}`);
  return ((await answer.json()) as { access_token: string }).access_token;
}

export interface SideLoad {
  server: ServerProcess;
  requests: LoadRequest[];
  okStatus?: (status: number) => boolean;
}

export interface SideFigures {
  /** Successful answers per second over every round. */
  rps: number;
  /** Server CPU per answer, µs (with the settling after each burst, when there is one). */
  cpuUs: number;
  /** Successful answers per second counting each burst's settling time too (`rps` without `settle`). */
  sustainedRps: number;
  /** The median of the rounds' 99th percentile latencies, ms. */
  p99: number;
  /** Answers over every round. */
  answered: number;
  /** Bytes the server process wrote per answer (`writtenBytes`; on SQLite its WAL pages), KB. */
  writtenKb: number;
}

/**
 * Loads A and B in alternating short bursts (A B, B A, ...) after a warm-up of each (2 s unless given), so a change in
 * the machine's load reaches both alike; returns each side's throughput and CPU per answer.
 */
export async function alternate(
  sides: { A: SideLoad; B: SideLoad },
  options: {
    rounds: number;
    seconds: number;
    connections: number;
    /** A fixed offered load (requests per second): CPU per answer below saturation, where a slower side's idle client does not inflate its cost. */
    rate?: number | undefined;
    /** Seconds of load on each side before the measured rounds (2 by default). */
    warmup?: number | undefined;
    /**
     * Waits, after each burst, until the side's deferred work is done (e.g. its events delivered), so that
     * it does not land in the other side's burst; its time and CPU are counted to the side.
     */
    settle?: (side: 'A' | 'B') => Promise<void>;
  },
): Promise<{ A: SideFigures; B: SideFigures }> {
  const totals = {
    A: { ok: 0, cpu: 0, answered: 0, settled: 0, written: 0 },
    B: { ok: 0, cpu: 0, answered: 0, settled: 0, written: 0 },
  };
  const p99s: { A: number[]; B: number[] } = { A: [], B: [] };
  const load = (side: 'A' | 'B', seconds: number) =>
    runLoad({
      url: sides[side].server.url,
      connections: options.connections,
      seconds,
      requests: sides[side].requests,
      rate: options.rate,
      ...(sides[side].okStatus ? { okStatus: sides[side].okStatus } : {}),
    });
  for (const side of ['A', 'B'] as const) await load(side, options.warmup ?? 2);
  for (let round = 0; round < options.rounds; round += 1) {
    for (const side of round % 2 === 0 ? (['A', 'B'] as const) : (['B', 'A'] as const)) {
      const cpu = cpuMillis(sides[side].server.pid);
      const written = writtenBytes(sides[side].server.pid);
      const figures = await load(side, options.seconds);
      const settling = performance.now();
      await options.settle?.(side);
      totals[side].settled += (performance.now() - settling) / 1000;
      totals[side].cpu += cpuMillis(sides[side].server.pid) - cpu;
      totals[side].written += writtenBytes(sides[side].server.pid) - written;
      totals[side].ok += figures.rps * options.seconds;
      totals[side].answered += figures.answered;
      p99s[side].push(figures.p99);
    }
  }
  const seconds = options.rounds * options.seconds;
  const figures = (side: 'A' | 'B'): SideFigures => ({
    rps: totals[side].ok / seconds,
    cpuUs: (totals[side].cpu * 1000) / totals[side].answered,
    sustainedRps: totals[side].ok / (seconds + totals[side].settled),
    p99: median(p99s[side]),
    answered: totals[side].answered,
    writtenKb: totals[side].written / 1024 / totals[side].answered,
  });
  return { A: figures('A'), B: figures('B') };
}
