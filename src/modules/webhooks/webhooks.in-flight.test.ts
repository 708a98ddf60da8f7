import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../../test/support/webhook-receiver.ts';
import { addProduct, createEndpoint, deleteEndpoint, FAST_WEBHOOKS } from '../../../test/support/webhooks.ts';

/**
 * How many requests go to one endpoint at once (FAST_WEBHOOKS: WEBHOOK_ENDPOINT_CONCURRENCY 2): an
 * endpoint that answers fast gets four times that, so that a busy process keeps up with its writes;
 * one that answers slowly keeps the setting, so it holds no more of the process's slots.
 */
for (const dialect of DIALECTS) {
  describe(`webhooks: requests in flight per endpoint (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let r: WebhookReceiver;
    before(async () => {
      r = await startWebhookReceiver();
      t = await startTestServer(dialect, FAST_WEBHOOKS);
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

    /** A few events, each delivered before the next: the endpoint's answer time becomes known. */
    async function warmUp(path: string): Promise<void> {
      for (let i = 1; i <= 3; i += 1) {
        await addProduct(t, `warm-up ${path} ${i}`);
        await r.waitFor(path, i);
      }
    }

    it('sends up to four times WEBHOOK_ENDPOINT_CONCURRENCY at once to an endpoint that answers fast', async () => {
      const endpoint = await createEndpoint(t, `${r.url}/fast`);
      await warmUp('/fast');
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
      await warmUp('/slow');
      await Promise.all(Array.from({ length: 10 }, (_, i) => addProduct(t, `slow ${i}`)));
      await r.waitFor('/slow', 13);
      assert.equal(most(), 2);
      await deleteEndpoint(t, endpoint.id);
    });
  });
}
