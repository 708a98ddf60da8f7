import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { DIALECTS } from '../support/dialects.ts';
import { openDatabase, slowPost, startProcess, waitFor } from './harness.test-support.ts';
import { allProblems } from './invariants.test-support.ts';
import { prepareWorld, startWriteLoad, type Ledger } from './write-load.test-support.ts';

function merge(a: Ledger, b: Ledger): Ledger {
  const statuses = new Map(a.statuses);
  for (const [status, count] of b.statuses) statuses.set(status, (statuses.get(status) ?? 0) + count);
  const errors = new Map(a.errors);
  for (const [error, count] of b.errors) errors.set(error, (errors.get(error) ?? 0) + count);
  return {
    orders: new Map([...a.orders, ...b.orders]),
    posts: new Map([...a.posts, ...b.posts]),
    likes: new Set([...a.likes, ...b.likes]),
    reports: [...a.reports, ...b.reports],
    statuses,
    errors,
    failures: [...a.failures, ...b.failures],
    latencies: [...a.latencies, ...b.latencies],
    trace: [...a.trace, ...b.trace],
  };
}

for (const dialect of DIALECTS) {
  describe(`graceful shutdown: SIGTERM under load (${dialect.name})`, { skip: dialect.skip }, () => {
    it('completes every accepted request, refuses new ones cleanly, exits within 10 s and writes nothing half', async (t) => {
      const database = await dialect.createDatabase();
      const db = openDatabase(database.url);
      try {
        // `debug` adds the arrival line of each request (core/http/access-log.ts).
        const server = await startProcess({ DATABASE_URL: database.url, LOG_LEVEL: 'debug' });
        const world = await prepareWorld(server.url, db, {
          users: 6,
          products: 4,
          stock: 500,
          tag: `term-${dialect.name}`,
        });
        const author = world.users[0]!;
        // Half the loops open a connection per request, half keep theirs alive (as a load balancer does).
        const loads = [true, false].map((close) =>
          startWriteLoad(world, { bases: [server.url], concurrency: 6, close }),
        );
        await Promise.all(loads.map((load) => load.answered(75)));
        const inFlight = Array.from({ length: 5 }, (_, i) =>
          slowPost(server.url, `/api/users/${author.id}/posts`, author.token, {
            title: `In flight ${i}`,
            content: 'Body finished after SIGTERM.',
          }),
        );
        // Accepted means the server has logged the request as incoming (a busy server accepts late).
        await waitFor(
          () => inFlight.every((request) => server.lines.some((line) => line.includes(request.id))),
          30_000,
          'the slow requests to be accepted',
        );

        const signalledAt = Date.now();
        server.process.kill('SIGTERM');
        await sleep(300);
        for (const request of inFlight) request.finish();
        const code = await server.exited;
        const exitMs = Date.now() - signalledAt;
        const [closing, keepAlive] = await Promise.all(loads.map((load) => load.stop()));
        const ledger = merge(closing!, keepAlive!);

        assert.equal(code, 0, server.lines.slice(-5).join('\n'));
        assert.ok(exitMs < 10_000, `exited ${exitMs} ms after SIGTERM`);
        const slow = await Promise.all(inFlight.map((request) => request.answer));
        for (const answer of slow) assert.equal(answer.status, 201, answer.text);
        const titles = (
          await db.selectFrom('posts').select('title').where('title', 'like', 'In flight %').execute()
        ).map((row) => row.title);
        assert.equal(titles.length, 5, 'every in-flight post was written');

        // The server logs every request it accepted; each of them must have been answered, and every
        // request the client saw cut off must be one the server never started.
        const accepted = new Set<string>();
        const completed = new Set<string>();
        for (const line of server.lines) {
          const entry = line.startsWith('{') ? (JSON.parse(line) as { msg?: string; reqId?: string }) : {};
          if (entry.msg === 'incoming request' && entry.reqId) accepted.add(entry.reqId);
          if (entry.msg === 'request completed' && entry.reqId) completed.add(entry.reqId);
        }
        const after = ledger.trace.filter((entry) => entry.start >= signalledAt);
        const cutOff = ledger.trace.filter((entry) => entry.status === 0);
        t.diagnostic(
          `exit ${exitMs} ms; ${ledger.trace.length - after.length} requests before the signal, ${after.length} after; ` +
            `statuses ${JSON.stringify([...ledger.statuses])}; errors ${JSON.stringify([...ledger.errors])}`,
        );
        assert.deepEqual(
          [...accepted].filter((id) => !completed.has(id)),
          [],
          'every accepted request completed',
        );
        assert.deepEqual(
          cutOff.filter((entry) => accepted.has(entry.id)),
          [],
          'no accepted request lost its connection',
        );
        assert.deepEqual(
          cutOff.filter((entry) => !['ECONNREFUSED', 'ECONNRESET', 'UND_ERR_SOCKET'].includes(entry.error ?? '')),
          [],
          'no request hung',
        );
        const badRefusals = ledger.trace.filter(
          (entry) => entry.status === 503 && entry.code !== 'SERVICE_UNAVAILABLE',
        );
        assert.deepEqual(badRefusals, [], 'a 503 while closing is in the error envelope');
        assert.ok(
          after.some((entry) => entry.status === 0 || entry.status === 503),
          'new requests were refused',
        );
        assert.deepEqual(ledger.failures, []);
        assert.deepEqual(await allProblems(db, ledger, world.products), []);
      } finally {
        await db.destroy();
        await database.drop();
      }
    });
  });
}
