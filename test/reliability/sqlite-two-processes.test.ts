import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ChildServer } from '../support/child-server.ts';
import { dialectNamed } from '../support/dialects.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';
import { call } from './harness.test-support.ts';
import { apiOf, createEndpoint, startRole, stopRole, type Api } from './process-roles.test-support.ts';

/**
 * Two processes on one SQLite file (an API process and a worker, DECISIONS §16): each has its own
 * connection, and a transaction that read before it wrote could not wait for the other's write lock
 * (SQLite answers a deferred transaction's upgrade with SQLITE_BUSY at once, past any busy timeout, when
 * the other committed since its read). The worker's fan-out, which reads the feed and then writes the
 * deliveries, failed so a few times a second under writes. Transactions take the write lock when they
 * begin (`begin immediate`) and wait for it, up to the busy timeout, as PostgreSQL's would for a row lock.
 */
const sqlite = dialectNamed('sqlite');
const WRITES = 400;
const AT_ONCE = 16;

describe('an API process and a worker on one SQLite file', { skip: sqlite.skip }, () => {
  let database: { url: string; drop(): Promise<void> };
  let receiver: WebhookReceiver;
  let apiProcess: ChildServer;
  let worker: ChildServer;
  let api: Api;

  before(async () => {
    database = await sqlite.createDatabase();
    receiver = await startWebhookReceiver();
    apiProcess = await startRole({ DATABASE_URL: database.url }, ['serve', '--role', 'api']);
    worker = await startRole({ DATABASE_URL: database.url, WEBHOOK_FANOUT_POLL_MS: '20' }, ['worker']);
    api = await apiOf(apiProcess.url);
  });
  after(async () => {
    for (const server of [worker, apiProcess]) if (server?.process.exitCode === null) await stopRole(server);
    await receiver?.close();
    await database?.drop();
  });

  it('writes and fans out side by side: every write answered, every event delivered, no "database is locked"', async () => {
    await createEndpoint(api, `${receiver.url}/both`);
    const statuses: number[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: AT_ONCE }, async () => {
        while (next < WRITES) {
          const i = next++;
          const created = await call(api.url, 'POST', '/api/products', {
            token: api.admin,
            body: { name: `side by side ${i}`, category: 'two-processes', price: 1, stock: 1 },
          });
          statuses.push(created.status);
        }
      }),
    );
    assert.deepEqual(
      statuses.filter((status) => status !== 201),
      [],
      'every write answered 201',
    );
    // At least once (DECISIONS §10): with the suite's 2 s leases a loaded machine can send one twice, so
    // the distinct events are counted.
    const distinct = () => new Set(receiver.at('/both').map((item) => item.event.data.id)).size;
    const deadline = Date.now() + 30_000;
    while (distinct() < WRITES && Date.now() < deadline) await sleep(50);
    assert.equal(distinct(), WRITES, 'every event delivered');
    const locked = [...apiProcess.lines, ...worker.lines]
      .filter((line) => /database is locked|SQLITE_BUSY/i.test(line))
      .map((line) => (JSON.parse(line) as { msg?: string }).msg ?? line);
    assert.deepEqual(locked, [], `${locked.length} lines say the database was locked`);
  });
});
