import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';

export interface ChildServer {
  process: ChildProcess;
  url: string;
  /** Every log line the process printed so far (JSON lines and plain ones). */
  lines: string[];
  exited: Promise<number | null>;
}

/**
 * Runs `node src/cli.ts <args>` (or another entry, such as the compiled `dist/cli.js`) as a real process
 * and waits until it listens and, unless `untilReady` is false, until it has migrated (`/readyz` no
 * longer says "migrating": the server listens before it migrates).
 */
export async function spawnServer(
  env: Record<string, string>,
  args = ['serve'],
  entry = 'src/cli.ts',
  { untilReady = true }: { untilReady?: boolean } = {},
): Promise<ChildServer> {
  const child = spawn(process.execPath, [entry, ...args], {
    // No load shedding unless a test asks: start-up and a busy machine would trip it.
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'info', OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  const url = await new Promise<string>((resolve, reject) => {
    // Generous: a loaded CI machine can take a while to start Node and strip the types of every module.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start:\n${lines.join('\n')}`));
    }, 90_000);
    for (const stream of [child.stdout!, child.stderr!]) {
      createInterface({ input: stream }).on('line', (line) => {
        lines.push(line);
        const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(line);
        if (match?.[1]) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      });
    }
    void exited.then((code) => reject(new Error(`server exited with ${code}:\n${lines.join('\n')}`)));
  });
  if (untilReady) await untilMigrated(url, exited, lines);
  return { process: child, url, lines, exited };
}

/** Waits until `/readyz` stops answering "migrating" (or the process exits). */
export async function untilMigrated(url: string, exited: Promise<unknown>, lines: string[] = []): Promise<void> {
  let gone = false;
  void exited.then(() => (gone = true));
  const deadline = Date.now() + 90_000;
  while (!gone && Date.now() < deadline) {
    const answer = await fetch(`${url}/readyz`).catch(() => undefined);
    const body = (await answer?.json().catch(() => undefined)) as { status?: string } | undefined;
    if (answer && body?.status !== 'migrating') return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`server did not finish migrating:\n${lines.join('\n')}`);
}
