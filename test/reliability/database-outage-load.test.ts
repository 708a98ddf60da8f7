import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { dialectNamed } from '../support/dialects.ts';
import { call, openDatabase, percentile, startProcess, waitFor } from './harness.test-support.ts';
import { allProblems } from './invariants.test-support.ts';
import { createCuttableProxy } from '../support/tcp-proxy.ts';
import { prepareWorld, startWriteLoad } from './write-load.test-support.ts';

const postgres = dialectNamed('postgres');

describe('PostgreSQL outage under load (server process behind a cuttable proxy)', { skip: postgres.skip }, () => {
  it('fails fast with 503 in the envelope while the database is gone, never crashes, and recovers on its own', async (t) => {
    const database = await postgres.createDatabase();
    const db = openDatabase(database.url);
    const url = new URL(database.url);
    const proxy = createCuttableProxy({ host: url.hostname, port: Number(url.port || 5432) });
    await proxy.start();
    url.port = String(proxy.port);
    try {
      const server = await startProcess({ DATABASE_URL: url.toString(), REPORT_POLL_MS: '200' });
      const world = await prepareWorld(server.url, db, { users: 6, products: 4, stock: 1000, tag: 'outage' });
      const load = startWriteLoad(world, { bases: [server.url], concurrency: 8, reports: true, timeoutMs: 15_000 });
      await load.answered(100);

      await proxy.cut();
      const cutAt = Date.now();
      await sleep(3000);
      const readyDuring = await call(server.url, 'GET', '/readyz');
      const liveDuring = await call(server.url, 'GET', '/healthz');
      const readDuring = await call(server.url, 'GET', `/api/users/${world.users[0]!.id}`, {
        token: world.users[0]!.token,
      });
      await proxy.start();
      const restoredAt = Date.now();

      await waitFor(
        async () => (await call(server.url, 'GET', '/readyz')).status === 200,
        30_000,
        '/readyz to recover',
      );
      const recoveredAt = Date.now();
      const answeredBefore = load.ledger.trace.length;
      await waitFor(
        () =>
          load.ledger.trace.slice(answeredBefore).filter((entry) => entry.status >= 200 && entry.status < 300).length >=
          20,
        30_000,
        'writes to succeed again',
      );
      const ledger = await load.stop();

      const during = ledger.trace.filter((entry) => entry.start >= cutAt + 200 && entry.end <= restoredAt);
      const unavailable = during.filter((entry) => entry.status === 503);
      t.diagnostic(
        `during the outage: ${during.length} answers, ${unavailable.length} x 503, p99 ${percentile(
          during.map((e) => e.end - e.start),
          99,
        )} ms, ` +
          `max ${Math.max(...during.map((e) => e.end - e.start))} ms; ready again ${recoveredAt - restoredAt} ms after the restore; statuses ${JSON.stringify([...ledger.statuses])}`,
      );
      assert.ok(server.process.exitCode === null && server.process.signalCode === null, 'the process is still running');
      assert.equal(readyDuring.status, 503);
      assert.equal(readyDuring.body.error.code, 'SERVICE_UNAVAILABLE');
      assert.equal(liveDuring.status, 200, 'liveness stays up: restarting would not help');
      assert.equal(readDuring.status, 503);
      assert.equal(readDuring.body.error.code, 'SERVICE_UNAVAILABLE');
      assert.ok(Number(readDuring.headers.get('retry-after')) > 0);
      assert.ok(unavailable.length > 10, 'the load met the outage');
      assert.deepEqual(
        during.filter((entry) => entry.status !== 503),
        [],
        'every request during the outage is a 503',
      );
      assert.deepEqual(
        during.filter((entry) => entry.code !== 'SERVICE_UNAVAILABLE'),
        [],
        'in the error envelope',
      );
      assert.ok(Math.max(...during.map((entry) => entry.end - entry.start)) < 2000, 'fails fast');
      const logged = server.lines.filter((line) => line.includes('"level":50')).slice(0, 3);
      assert.deepEqual(ledger.failures, [], `no 500s; the server logged: ${logged.join('\n')}`);
      assert.deepEqual(await allProblems(db, ledger, world.products), []);
      server.process.kill('SIGTERM');
      assert.equal(await server.exited, 0);
    } finally {
      await proxy.cut();
      await db.destroy();
      await database.drop();
    }
  });
});
