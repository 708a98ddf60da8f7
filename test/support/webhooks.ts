import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type { TestServer } from './test-server.ts';

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
