import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/** Samples a second of on-CPU time (odd, so not in step with the kernel's timer). */
const FREQUENCY = '1999';

/** Linux `perf` is installed (Debian's `linux-perf`): `--perf` of ab-compare.ts needs it. */
export function perfAvailable(): boolean {
  return spawnSync('perf', ['--version'], { stdio: 'ignore' }).status === 0;
}

/**
 * The Node option a server needs so `perf` names its JIT-compiled functions (a map file in /tmp a process).
 * Names of code that V8 moved or freed can be stale (a later function at the same address): trust the
 * categories `perf-split.ts` prints over a single JIT function's name.
 */
export const PERF_NODE_OPTIONS = '--perf-basic-prof';

/**
 * Removes the V8 log `PERF_NODE_OPTIONS` makes a server write into its working directory (`isolate-…-PID-v8.log`:
 * `--logfile` cannot go in NODE_OPTIONS), so a recorded tree is left as it was.
 */
export function removeV8Log(dir: string, pid: number): void {
  for (const name of readdirSync(dir)) {
    if (name.startsWith('isolate-') && name.endsWith(`-${pid}-v8.log`)) rmSync(join(dir, name), { force: true });
  }
}

export interface PerfRecording {
  stop(): Promise<void>;
}

/**
 * `perf record` of every thread of the process `pid` (the kernel's work done in its name included: the
 * socket writes and the loopback delivery they run), on-CPU samples with call stacks, into `DIR/NAME.data`.
 */
export function recordPerf(pid: number, dir: string, name: string): PerfRecording {
  mkdirSync(dir, { recursive: true });
  const child: ChildProcess = spawn(
    'perf',
    ['record', '-e', 'cpu-clock', '-F', FREQUENCY, '-g', '-p', String(pid), '-o', join(dir, `${name}.data`)],
    { stdio: 'ignore' },
  );
  return {
    async stop() {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGINT');
      await exited;
    },
  };
}
