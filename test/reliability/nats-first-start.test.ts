import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ChildServer } from '../support/child-server.ts';
import { DIALECTS } from '../support/dialects.ts';
import { natsSkip, testStream, type TestStream } from '../support/nats.ts';
import { call, waitFor } from './harness.test-support.ts';
import { addProduct, apiOf, startRole, stopRole, type Api } from './process-roles.test-support.ts';

/**
 * DECISIONS §10 and §16 on a brand-new database: API processes with `NATS_URL` take writes before any
 * process has ever run the NATS publisher. Every event they write is published once a worker starts,
 * once each: the publisher's place in the feed exists before the first event an API process writes
 * (broker/README.md), not only from the worker's first step (which would start it past them all).
 */
for (const dialect of DIALECTS) {
  describe(`NATS publisher on a brand-new database (${dialect.name})`, { skip: dialect.skip || natsSkip }, () => {
    let database: { url: string; drop(): Promise<void> };
    let stream: TestStream;
    let apiProcess: ChildServer | undefined;
    let worker: ChildServer | undefined;
    let api: Api;

    before(async () => {
      database = await dialect.createDatabase();
      stream = await testStream();
    });
    after(async () => {
      for (const server of [worker, apiProcess]) if (server?.process.exitCode === null) await stopRole(server);
      await stream?.close();
      await database?.drop();
    });

    it('publishes every event an API process wrote before any worker ran, each once, once a worker starts', async () => {
      const env = { DATABASE_URL: database.url, ...stream.env, NATS_POLL_MS: '100' };
      apiProcess = await startRole(env, ['serve', '--role', 'api']);
      api = await apiOf(apiProcess.url);
      for (let i = 0; i < 5; i += 1) await addProduct(api, `before any worker ${i}`);
      const feed = await call(api.url, 'GET', '/api/events?limit=1000', { token: api.admin });
      assert.equal(feed.status, 200);
      const written = (feed.body.data as { id: string; type: string }[]).map((event) => event.id);
      assert.ok(written.length >= 5, `the products' events are in the feed (${written.length})`);
      assert.deepEqual(await stream.messages(), [], 'nothing is published without a worker');

      worker = await startRole(env, ['worker']);
      const publishedIds = async () => (await stream.messages()).map((message) => message.msgId);
      await waitFor(
        async () => (await publishedIds()).length >= written.length,
        15_000,
        `${written.length} events published`,
      );
      // Several more polls of the publisher: an event published twice would be stored now.
      await sleep(500);
      assert.deepEqual((await publishedIds()).sort(), [...written].sort(), 'every event written before, each once');
    });
  });
}
