import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type { TestServer } from './test-server.ts';
import type { WebhookReceiver } from './webhook-receiver.ts';

/** Helpers of the webhook suites: endpoints, product events, and waiting on the delivery log. */

/** Settings that make the workers quick and the retries short. */
export const FAST_WEBHOOKS: Record<string, string> = {
  REPORT_WORKER: 'false',
  WEBHOOK_FANOUT_POLL_MS: '50',
  WEBHOOK_DELIVERY_POLL_MS: '50',
  WEBHOOK_RETRY_SCHEDULE: '100ms,100ms',
  WEBHOOK_TIMEOUT_MS: '1000',
  WEBHOOK_ENDPOINT_CONCURRENCY: '2',
};

export interface CreatedEndpoint {
  id: number;
  secret: string;
  url: string;
}

export async function createEndpoint(t: TestServer, url: string, events = ['product.*']): Promise<CreatedEndpoint> {
  const answer = await t.request('POST', '/api/webhooks', { token: t.adminToken, body: { url, events } });
  assert.equal(answer.status, 201, answer.text);
  return answer.body as CreatedEndpoint;
}

export async function deleteEndpoint(t: TestServer, id: number): Promise<void> {
  assert.equal((await t.request('DELETE', `/api/webhooks/${id}`, { token: t.adminToken })).status, 204);
}

/** Creates a product (one `product.created`); its id. */
export async function addProduct(t: TestServer, name = 'hooked'): Promise<number> {
  const answer = await t.request('POST', '/api/products', {
    token: t.adminToken,
    body: { name, category: 'webhooks', price: 1, stock: 1 },
  });
  assert.equal(answer.status, 201, answer.text);
  return (answer.body as { id: number }).id;
}

/** Renames a product (one `product.updated`). */
export async function renameProduct(t: TestServer, id: number, name: string): Promise<void> {
  const answer = await t.request('PATCH', `/api/products/${id}`, { token: t.adminToken, body: { name } });
  assert.equal(answer.status, 200, answer.text);
}

export interface DeliveryItem {
  id: number;
  eventId: string;
  status: string;
  attempts: number;
  lastResponseStatus: number | null;
  nextAttemptAt: string | null;
}

export async function deliveriesOf(t: TestServer, endpointId: number, query = ''): Promise<DeliveryItem[]> {
  const answer = await t.request('GET', `/api/webhooks/${endpointId}/deliveries?limit=100${query}`, {
    token: t.adminToken,
  });
  assert.equal(answer.status, 200, answer.text);
  return (answer.body as { data: DeliveryItem[] }).data;
}

/** Polls `check` until it returns a value (not undefined), or fails after `timeoutMs`. */
export async function eventually<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

/** A few product events, each delivered to every path before the next: the endpoints' answer times become known (fast). */
export async function warmUp(t: TestServer, r: WebhookReceiver, paths: readonly string[], times = 3): Promise<void> {
  const before = paths.map((path) => r.at(path).length);
  for (let i = 1; i <= times; i += 1) {
    await addProduct(t, `warm-up ${paths.join(' ')} ${i}`);
    for (const [n, path] of paths.entries()) await r.waitFor(path, before[n]! + i, 5000);
  }
}

/**
 * How long after `since` (ms) `path` received the events of the products `ids`, once it has them all:
 * "a slow or dead endpoint delays no other" (DECISIONS §10) wants each well under the attempts' timeout.
 */
export async function deliveredAfter(
  r: WebhookReceiver,
  path: string,
  ids: readonly number[],
  since: number,
): Promise<number[]> {
  const items = await eventually(`${path} to receive products ${ids.join(', ')}`, async () => {
    const found = r.at(path).filter((item) => ids.includes(Number(item.event.data.id)));
    return found.length >= ids.length ? found : undefined;
  });
  return items.map((item) => item.at - since);
}

/**
 * As `r.waitFor`, but a timeout says where the missing requests are: the endpoint's deliveries not yet
 * succeeded (status, attempts, claim, next attempt), how many of `names`' events the outbox holds and
 * where the fan-out stands, so a failure seen once in CI tells a stuck claim from a skipped event.
 */
export async function waitForDeliveries(
  t: TestServer,
  r: WebhookReceiver,
  path: string,
  count: number,
  endpointId: number,
  timeoutMs = 10_000,
): Promise<void> {
  try {
    await r.waitFor(path, count, timeoutMs);
  } catch (error) {
    const db = t.server.db;
    const open = await db
      .selectFrom('webhook_deliveries')
      .select([
        'id',
        'event_tx',
        'event_seq',
        'status',
        'attempts',
        'last_error',
        'next_attempt_at',
        'claimed_by',
        'claimed_until',
      ])
      .where('endpoint_id', '=', endpointId)
      .where('status', '!=', 'succeeded')
      .execute();
    const made = await db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('endpoint_id', '=', endpointId)
      .executeTakeFirst();
    const consumers = await db.selectFrom('event_consumers').selectAll().execute();
    const state = { now: new Date().toISOString(), made: made?.n, open, consumers };
    throw new Error(`${(error as Error).message}; deliveries: ${JSON.stringify(state)}`, { cause: error });
  }
}
