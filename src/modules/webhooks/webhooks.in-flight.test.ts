import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../../test/support/webhook-receiver.ts';
import {
  addProduct,
  createEndpoint,
  deleteEndpoint,
  deliveredAfter,
  FAST_WEBHOOKS,
  warmUp,
} from '../../../test/support/webhooks.ts';

/**
 * How many requests go to one endpoint at once (FAST_WEBHOOKS: WEBHOOK_ENDPOINT_CONCURRENCY 2): an
 * endpoint that answers fast gets four times that, so that a busy process keeps up with its writes;
 * one that answers slowly keeps the setting, so it holds no more of the process's slots. Six slots
 * (WEBHOOK_CONCURRENCY) for every endpoint's first two requests, three more for fast endpoints' others.
 */
/** Long enough that a delivery stuck behind hanging requests is told from one sent at once on a loaded machine. */
const TIMEOUT_MS = 3000;
for (const dialect of DIALECTS) {
  describe(`webhooks: requests in flight per endpoint (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let r: WebhookReceiver;
    before(async () => {
      r = await startWebhookReceiver();
      t = await startTestServer(dialect, {
        ...FAST_WEBHOOKS,
        WEBHOOK_CONCURRENCY: '6',
        WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
      });
    });
    after(async () => {
      await t?.close();
      await r?.close();
    });

    /** Answers `path` after `delayMs`; the most requests it had unanswered at once. */
    function answerAfter(path: string, delayMs: number): () => number {
      let most = 0;
      r.respond(path, () => {
        most = Math.max(most, r.at(path).filter((item) => !item.answered).length);
        return { status: 204, delayMs };
      });
      return () => most;
    }

    it('sends up to four times WEBHOOK_ENDPOINT_CONCURRENCY at once to an endpoint that answers fast', async () => {
      const endpoint = await createEndpoint(t, `${r.url}/fast`);
      await warmUp(t, r, ['/fast']);
      // Still fast (under 250 ms on average), but slow enough for the requests to overlap.
      const most = answerAfter('/fast', 150);
      await Promise.all(Array.from({ length: 24 }, (_, i) => addProduct(t, `fast ${i}`)));
      await r.waitFor('/fast', 27);
      assert.ok(most() > 2, `${most()} in flight at most: no more than WEBHOOK_ENDPOINT_CONCURRENCY`);
      assert.ok(most() <= 8, `${most()} in flight at most`);
      await deleteEndpoint(t, endpoint.id);
    });

    it('keeps an endpoint that answers slowly to WEBHOOK_ENDPOINT_CONCURRENCY', async () => {
      const endpoint = await createEndpoint(t, `${r.url}/slow`);
      const most = answerAfter('/slow', 400);
      await warmUp(t, r, ['/slow']);
      await Promise.all(Array.from({ length: 10 }, (_, i) => addProduct(t, `slow ${i}`)));
      await r.waitFor('/slow', 13);
      assert.equal(most(), 2);
      await deleteEndpoint(t, endpoint.id);
    });

    it('lets two fast endpoints that start hanging at once delay no other endpoint', async () => {
      // Each may have five in flight (two, and three of the extra slots they share), but of the six slots
      // for every endpoint's first two they hold four, so a third endpoint is served at once. When a fast
      // endpoint's extra requests took slots of the six, the two took all six until their requests timed
      // out (seen failing).
      const dying = [await createEndpoint(t, `${r.url}/dying-1`), await createEndpoint(t, `${r.url}/dying-2`)];
      await warmUp(t, r, ['/dying-1', '/dying-2']);
      r.script('/dying-1', { hang: true });
      r.script('/dying-2', { hang: true });
      const other = await createEndpoint(t, `${r.url}/other`);
      const later = await Promise.all([0, 1, 2, 3, 4, 5].map((i) => addProduct(t, `dying ${i}`)));
      // The fourth request of each is its first hanging one.
      const hung = [(await r.waitFor('/dying-1', 4, 5000))[3]!, (await r.waitFor('/dying-2', 4, 5000))[3]!];
      const hangingSince = Math.min(...hung.map((item) => item.at));
      const after = await deliveredAfter(r, '/other', later, hangingSince);
      assert.ok(
        Math.max(...after) < TIMEOUT_MS - 1000,
        `other deliveries ${after.join(', ')} ms after the first hanging request (timeout ${TIMEOUT_MS} ms)`,
      );
      for (const endpoint of [...dying, other]) await deleteEndpoint(t, endpoint.id);
      // Their hanging requests end before the server closes.
      await sleep(TIMEOUT_MS + 500);
    });
  });
}
