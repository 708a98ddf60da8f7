import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { createServer } from 'node:net';
import { cpus } from 'node:os';

export const NODE = process.execPath;
/** Where the service's `src/cli.ts` is run from: another checkout compares two versions (A/B). */
export const SERVER_DIR = process.env.BENCH_SERVER_DIR ?? '.';

/** `taskset` exists and there are at least two cores: the server gets core 0, the load generator core 1. */
export const PINNING = cpus().length >= 2 && spawnSync('taskset', ['-V']).status === 0;
const SERVER_CORE = '0';
const LOAD_CORE = '1';

/** Moves this process (every thread of it: autocannon runs here) to the load generator's core. */
export function pinLoadGenerator(): void {
  if (!PINNING) return;
  spawnSync('taskset', ['-a', '-cp', LOAD_CORE, String(process.pid)], { stdio: 'ignore' });
}

/** Moves a process (every thread) to the load generator's core: a helper process whose CPU is not the server's. */
export function moveToLoadCore(pid: number): void {
  if (!PINNING) return;
  spawnSync('taskset', ['-a', '-cp', LOAD_CORE, String(pid)], { stdio: 'ignore' });
}

/** The pids of the local PostgreSQL server's processes (`comm` is `postgres`). */
function postgresProcesses(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres') pids.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return pids;
}

/** The pids of the local PostgreSQL server's processes, the postmaster (the one whose parent is not one of them) first. */
function postgresPids(): number[] {
  const parents = new Map<number, number>();
  for (const pid of postgresProcesses()) {
    try {
      // The parent's pid is the 2nd field after the command name (which may hold spaces).
      parents.set(pid, Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]));
    } catch {
      // exited meanwhile
    }
  }
  return [...parents.keys()].sort(
    (a, b) => Number(parents.has(parents.get(a)!)) - Number(parents.has(parents.get(b)!)),
  );
}

/**
 * Pins every process of the local PostgreSQL server to the server's core (the postmaster first, so the
 * backends it forks from now on inherit it): the database's CPU then counts as in a one-core container
 * holding both (issue 37). Returns what gives them every core back, as the machine starts them; it also
 * runs if this process is interrupted, and a run that was killed leaves them pinned until the next
 * run's end (or `taskset -a -cp 0-N <pid>` by hand).
 */
export function pinPostgres(): () => void {
  if (!PINNING) return () => {};
  const pin = (cores: string) => {
    for (const pid of postgresPids()) spawnSync('taskset', ['-a', '-cp', cores, String(pid)], { stdio: 'ignore' });
  };
  const unpin = () => pin(`0-${cpus().length - 1}`);
  const onSignal = (signal: NodeJS.Signals) => {
    unpin();
    process.kill(process.pid, signal);
  };
  pin(SERVER_CORE);
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    unpin();
  };
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

export interface ServerProcess {
  child: ChildProcess;
  pid: number;
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts `node <args>` pinned to the server core (taskset execs node, so the pid is the server's),
 * its output appended to `logFile`, and waits until `readyPath` answers.
 */
export async function startProcess(
  args: string[],
  env: Record<string, string>,
  port: number,
  logFile: string,
  readyPath: string,
  cwd = '.',
): Promise<ServerProcess> {
  const command = PINNING ? 'taskset' : NODE;
  const argv = PINNING ? ['-c', SERVER_CORE, NODE, ...args] : args;
  mkdirSync(dirname(logFile), { recursive: true }); // data/bench/ is not in a fresh clone
  const log = createWriteStream(logFile);
  const child = spawn(command, argv, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  // Both into one file, ended once the child's output has closed: a pipe that ended the file at its own end
  // made the other's last lines a write after end, which crashed the bench instead of saying the server
  // did not start (a V8 flag that NODE_OPTIONS does not accept, say).
  child.stdout.pipe(log, { end: false });
  child.stderr.pipe(log, { end: false });
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    log.end();
  };
  for (let i = 0; i < 600; i += 1) {
    if (child.exitCode !== null) break;
    try {
      if ((await fetch(url + readyPath)).ok) return { child, pid: child.pid!, url, stop };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  await stop();
  throw new Error(`${args.join(' ')} did not start; see ${logFile}`);
}

/** Runs a CLI command to completion (seed, token) and returns its standard output. */
export function runCli(args: string[], env: Record<string, string>, dir = SERVER_DIR): string {
  const result = spawnSync(NODE, ['src/cli.ts', ...args], {
    cwd: dir,
    env: { ...process.env, ...env },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0)
    throw new Error(`cli ${args.join(' ')} failed (${result.status}): ${result.stderr.slice(-2000)}`);
  return result.stdout;
}

function statusField(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** The process's high-water mark of resident memory (bytes), as the kernel counts it. */
export const peakRss = (pid: number) => statusField(pid, 'VmHWM');
export const currentRss = (pid: number) => statusField(pid, 'VmRSS');

/** Samples VmRSS every 100 ms until stopped; returns the largest value seen (bytes). */
export function sampleRss(pid: number): () => number {
  let max = currentRss(pid);
  const timer = setInterval(() => {
    max = Math.max(max, currentRss(pid));
  }, 100);
  return () => {
    clearInterval(timer);
    return Math.max(max, currentRss(pid));
  };
}

/** CPU time the process has used so far (user + system), in milliseconds. */
export function cpuMillis(pid: number): number {
  try {
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return Number.NaN;
  }
}
const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

/**
 * Bytes a process has handed to write calls so far (`wchar` of /proc/PID/io): for a SQLite service mostly its
 * WAL frames, so a count of pages written that no other load on the machine changes. NaN where unreadable.
 */
export function writtenBytes(pid: number): number {
  try {
    return Number(/^wchar: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1] ?? Number.NaN);
  } catch {
    return Number.NaN;
  }
}

/** The 1-minute load average, from /proc/loadavg. */
export function loadAverage(): [number, number, number] {
  const [one, five, fifteen] = readFileSync('/proc/loadavg', 'utf8').split(' ').map(Number);
  return [one!, five!, fifteen!];
}

/** Waits (up to `maxSeconds`) for the 1-minute load average to fall to `threshold`; returns the last reading. */
export async function waitForQuiet(
  threshold: number,
  maxSeconds: number,
  say: (line: string) => void,
): Promise<[number, number, number]> {
  const deadline = Date.now() + maxSeconds * 1000;
  let load = loadAverage();
  while (load[0] > threshold && Date.now() < deadline) {
    say(`load average ${load.join(' ')}: waiting for it to fall below ${threshold}`);
    await new Promise((resolve) => setTimeout(resolve, 30_000));
    load = loadAverage();
  }
  return load;
}

/** `postgres: [cluster: ]user database host(port) state`: a client backend and its database. */
const BACKEND = /^postgres: (?:\S+: )?\S+ (\S+) (?:\S+\(\d+\)|\[local\])/;

/**
 * CPU time (user + system, ms) of the local PostgreSQL server's processes, per pid: the backends
 * connected to `database` plus the shared ones (postmaster, WAL writer, checkpointer...). Backends of
 * other databases are left out, so other work on a shared server counts only through the shared processes.
 */
function postgresCpuByPid(database: string): Map<number, number> {
  const byPid = new Map<number, number>();
  for (const pid of postgresProcesses()) {
    try {
      const backend = BACKEND.exec(readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' '));
      if (backend && backend[1] !== database) continue;
      const millis = cpuMillis(pid);
      if (Number.isFinite(millis)) byPid.set(pid, millis);
    } catch {
      // exited meanwhile
    }
  }
  return byPid;
}

/**
 * Starts counting the CPU time the PostgreSQL processes of `database` spend from now on; `stop()`
 * returns it (ms). Sampled every 200 ms and kept per process, so a backend that exits meanwhile (a pool
 * closing idle connections) keeps what it spent up to its last sample instead of taking it away.
 */
export function postgresCpuTracker(database: string): { stop(): number } {
  const first = postgresCpuByPid(database);
  const last = new Map(first);
  const sample = () => {
    for (const [pid, millis] of postgresCpuByPid(database)) last.set(pid, millis);
  };
  const timer = setInterval(sample, 200);
  return {
    stop() {
      clearInterval(timer);
      sample();
      let total = 0;
      for (const [pid, millis] of last) total += millis - (first.get(pid) ?? 0);
      return total;
    },
  };
}
