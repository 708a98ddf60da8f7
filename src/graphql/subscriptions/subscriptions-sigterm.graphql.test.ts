import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import pg from 'pg';
import { BASE_ENV, startProcess, waitFor } from '../../../test/reliability/harness.test-support.ts';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { subscribeWs, within, wsClient, type Received } from '../../../test/support/live-clients.ts';

/**
 * DECISIONS §11 at a real stop: the service runs as its own process (`node src/cli.ts serve`, the
 * reliability harness's), a graphql-ws client holds a subscription and sends a query, and the process gets
 * a SIGTERM, as from systemd or a container runtime. The in-process shutdown tests call `server.close()`;
 * this one goes through the signal handler, the drain and the exit code too.
 */

const USER = 'subscription U($id: ID!) { userUpdated(id: $id) { id name } }';
const QUERY = '{ user(id: "1") { id name } }';

/** `content-service token --user ID` with the server's JWT_SECRET, as an operator mints a token. */
async function cliToken(databaseUrl: string, userId: number): Promise<string> {
  const env = { ...process.env, ...BASE_ENV, DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' };
  const args = ['src/cli.ts', 'token', '--user', String(userId)];
  const { stdout } = await promisify(execFile)(process.execPath, args, { env, encoding: 'utf8' });
  return stdout.trim();
}

/** Subscriptions over WebSocket the process holds now, from its /metrics (no token outside production). */
async function liveSubscriptions(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(/^graphql_subscriptions_active\{transport="websocket"\} (\d+)$/m.exec(text)?.[1] ?? 0);
}

/**
 * PostgreSQL: the users table locked by a transaction of the test's own, so the server's query on it stays
 * in flight until `release()`. (SQLite's driver is synchronous: a query cannot wait without stopping the
 * whole process, so there it is answered at once and only the order of answer and close is checked.)
 */
async function holdUsers(databaseUrl: string) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query('begin');
  await client.query('lock table users in access exclusive mode');
  let released = false;
  return {
    async waiting(): Promise<boolean> {
      const { rows } = await client.query<{ n: number }>(
        "select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'",
      );
      return rows[0]!.n > 0;
    },
    async release(): Promise<void> {
      if (released) return;
      released = true;
      await client.query('commit');
      await client.end();
    },
  };
}

for (const dialect of DIALECTS) {
  describe(
    `GraphQL over WebSocket when the server process gets SIGTERM (${dialect.name})`,
    { skip: dialect.skip },
    () => {
      it('answers the query in flight on a socket, then closes it with 1001, and the process exits 0', async () => {
        const database = await dialect.createDatabase();
        let held: Awaited<ReturnType<typeof holdUsers>> | undefined;
        try {
          const server = await startProcess({ DATABASE_URL: database.url });
          const token = await cliToken(database.url, 1);
          // The close as the client reports it, and how many answers to the query had arrived by then.
          const sent: { query?: Received; closed?: { code: number; answered: number } } = {};
          const client = wsClient(server, token, (event) => {
            sent.closed ??= { code: (event as { code: number }).code, answered: sent.query?.results.length ?? 0 };
          });
          const live = subscribeWs(client, USER, { id: '1' });
          await waitFor(async () => (await liveSubscriptions(server.url)) === 1, 30_000, 'the live subscription');
          const hold = dialect.name === 'postgres' ? await holdUsers(database.url) : undefined;
          held = hold;
          const query = (sent.query = subscribeWs(client, QUERY));
          if (hold) await waitFor(() => hold.waiting(), 30_000, "the server's query waiting for the users table");
          server.process.kill('SIGTERM');
          if (hold) {
            // Past the drain (at most 1 s with a socket open): a shutdown that did not wait would have closed it.
            await sleep(2_000);
            assert.equal(sent.closed, undefined, 'the socket stays open while its query is in flight');
            await hold.release();
          }
          await within(live.ended, 'the end of the subscription at the close', 30_000);
          assert.deepEqual(sent.closed, { code: 1001, answered: 1 }, 'closed with 1001 after the answer');
          assert.equal(query.results.length, 1);
          assert.equal(query.results[0]!.errors, undefined);
          assert.equal((query.results[0]!.data?.user as { id: string }).id, '1');
          assert.equal(await within(server.exited, 'the exit', 30_000), 0, 'the exit code');
          assert.ok(server.lines.some((line) => line.includes('Shutdown complete after SIGTERM')));
          await client.dispose();
        } finally {
          await held?.release();
          await database.drop();
        }
      });
    },
  );
}
