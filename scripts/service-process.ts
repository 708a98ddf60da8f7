import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { serverArgs } from '../bench/suite/server-command.ts';
import { freePort } from './scratch.ts';

/**
 * `npm start`'s command (of `root`) as a child process in production mode, for the scripts that attack a
 * real server (hostile run, sqlmap scan): its error log lines collected, its crash noticed.
 */
export interface ServiceProcess {
  url: string;
  /** Log records at pino level 50 (error) and above. */
  errorLines: string[];
  /** Standard-error lines that are not log records (Node's own messages, a crash's stack). */
  otherStderr: string[];
  /** Set when the process ended by itself: its exit code or signal and its last output lines. */
  crash?: { exit: string; tail: string[] };
  readonly exited: boolean;
  stop(): Promise<void>;
}

/**
 * Starts the service on `databaseUrl` (demo data, a random JWT secret, rate limits far beyond what a run can
 * spend so every answer is the route's own and not a 429) with `env` on top, and waits for `/readyz`.
 */
export async function startServiceProcess(
  root: string,
  databaseUrl: string,
  env: Record<string, string>,
): Promise<ServiceProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, serverArgs(root), {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: String(port),
      DATABASE_URL: databaseUrl,
      DEMO_DATA: 'true',
      LOG_LEVEL: 'warn',
      JWT_SECRET: randomBytes(32).toString('hex'),
      RATE_LIMIT_MAX: '1000000000',
      RATE_LIMIT_AUTH_MAX: '1000000000',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let [exited, stopping] = [false, false];
  const tail: string[] = [];
  const service: ServiceProcess = {
    url: `http://127.0.0.1:${port}`,
    errorLines: [],
    otherStderr: [],
    get exited() {
      return exited;
    },
    stop: async () => {
      stopping = true;
      if (exited) return;
      child.kill('SIGTERM');
      await Promise.race([exit, sleep(15_000)]);
      if (!exited) child.kill('SIGKILL');
      await exit;
    },
  };
  const exit = once(child, 'exit').then(([code, signal]) => {
    exited = true;
    if (!stopping) service.crash = { exit: signal ? `signal ${signal}` : `exit code ${code}`, tail: [...tail] };
  });
  for (const [stream, isStderr] of [
    [child.stdout!, false],
    [child.stderr!, true],
  ] as const)
    createInterface({ input: stream }).on('line', (line) => {
      tail.push(line.slice(0, 2000));
      if (tail.length > 30) tail.shift();
      const level = logLevel(line);
      if (level >= 50) service.errorLines.push(line);
      else if (isStderr && Number.isNaN(level)) service.otherStderr.push(line);
    });
  for (const deadline = Date.now() + 90_000; ; await sleep(200)) {
    const ready = await fetch(`${service.url}/readyz`).then(
      (response) => response.status === 200,
      () => false,
    );
    if (ready) return service;
    if (exited || Date.now() > deadline) {
      await service.stop();
      throw new Error(`service did not get ready:\n${tail.join('\n')}`);
    }
  }
}

/** A log record's pino level, or NaN for a line that is not one. */
function logLevel(line: string): number {
  try {
    return Number((JSON.parse(line) as { level?: unknown }).level);
  } catch {
    return NaN;
  }
}
