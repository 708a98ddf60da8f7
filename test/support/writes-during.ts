import { setTimeout as sleep } from 'node:timers/promises';
import { openPgSession, type PgSession } from './pg-session.ts';

/**
 * A writer beside a long operation (an online index build, a backfill): `write` on a PostgreSQL session
 * of its own, one after another 5 ms apart, until `stop`, which says how many went through and how long
 * the slowest waited. A write held for the operation's length shows as a slowest near its duration.
 */
export function writesDuring(
  url: string,
  write: (session: PgSession, i: number) => Promise<unknown>,
): { stop(): Promise<{ writes: number; slowestMs: number }> } {
  let going = true;
  let writes = 0;
  let slowestMs = 0;
  const done = (async () => {
    const session = await openPgSession(url);
    try {
      for (let i = 1; going; i += 1) {
        const started = performance.now();
        await write(session, i);
        slowestMs = Math.max(slowestMs, performance.now() - started);
        writes += 1;
        await sleep(5);
      }
    } finally {
      await session.end();
    }
  })();
  return {
    async stop() {
      going = false;
      await done;
      return { writes, slowestMs };
    },
  };
}
