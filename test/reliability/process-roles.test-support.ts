import { after } from 'node:test';
import { spawnServer, type ChildServer } from '../support/child-server.ts';
import { BASE_ENV, call, tokenFor, waitFor } from './harness.test-support.ts';

/**
 * Helpers of the process-role suites (DECISIONS §16): API and worker processes started with a command
 * line of their own (`serve --role api`, `worker`), killed after the suite whatever happens.
 */

/**
 * Quick jobs and short leases: a killed worker's claims run out in about 2 s (the shortest webhook lease
 * there is: the timeout plus a second). The fan-out keeps its default poll, the one a worker process
 * finds new events by, so the latency the suites see is the production one.
 */
export const ROLE_ENV: Record<string, string> = {
  WEBHOOK_TIMEOUT_MS: '1000',
  WEBHOOK_LEASE_MS: '100',
  WEBHOOK_DELIVERY_POLL_MS: '100',
  WEBHOOK_RETRY_SCHEDULE: '100ms',
  REPORT_POLL_MS: '100',
  REPORT_LEASE_MS: '1000',
  // A pending order's hold runs out after 0.6 s; a sweeping process cancels it within 0.2 s more.
  ORDER_HOLD_MINUTES: '0.01',
  ORDER_SWEEP_INTERVAL_MS: '200',
};

const running = new Set<ChildServer>();
// Registered at import, so on the file's root: an `after` called from a hook would run when that hook ends.
after(() => {
  for (const server of running) server.process.kill('SIGKILL');
});

/** `node src/cli.ts <args>` with the reliability settings, SIGKILLed after the file's tests. */
export async function startRole(env: Record<string, string>, args: string[]): Promise<ChildServer> {
  const server = await spawnServer({ ...BASE_ENV, ...ROLE_ENV, ...env }, args);
  running.add(server);
  void server.exited.then(() => running.delete(server));
  return server;
}

/** Stops a process with SIGTERM and returns its exit code. */
export async function stopRole(server: ChildServer): Promise<number | null> {
  server.process.kill('SIGTERM');
  return server.exited;
}

/** A scraped gauge or counter of `/metrics` (the sum of its series); undefined when absent. */
export async function metricOf(base: string, name: string): Promise<number | undefined> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const values = text
    .split('\n')
    .filter((line) => line.startsWith(`${name} `) || line.startsWith(`${name}{`))
    .map((line) => Number(line.slice(line.lastIndexOf(' ') + 1)));
  return values.length === 0 ? undefined : values.reduce((sum, value) => sum + value, 0);
}

export interface Api {
  url: string;
  admin: string;
}

export async function apiOf(url: string): Promise<Api> {
  return { url, admin: await tokenFor(1, 'admin') };
}

/** Creates a product through the API (one `product.created`); its id and when the answer came. */
export async function addProduct(api: Api, name: string): Promise<{ id: number; answeredAt: number }> {
  const created = await call(api.url, 'POST', '/api/products', {
    token: api.admin,
    body: { name, category: 'roles', price: 1, stock: 100 },
  });
  if (created.status !== 201)
    throw new Error(`product: ${created.status} ${created.error ?? JSON.stringify(created.body)}`);
  return { id: created.body.id as number, answeredAt: Date.now() };
}

export async function createEndpoint(api: Api, url: string): Promise<number> {
  const created = await call(api.url, 'POST', '/api/webhooks', {
    token: api.admin,
    body: { url, events: ['product.*'] },
  });
  if (created.status !== 201)
    throw new Error(`endpoint: ${created.status} ${created.error ?? JSON.stringify(created.body)}`);
  return created.body.id as number;
}

/** The endpoint's delivery log (newest first), through the API. */
export async function deliveriesOf(api: Api, endpoint: number): Promise<{ eventId: string; status: string }[]> {
  const answer = await call(api.url, 'GET', `/api/webhooks/${endpoint}/deliveries?limit=100`, { token: api.admin });
  if (answer.status !== 200) throw new Error(`deliveries: ${answer.status}`);
  return answer.body.data as { eventId: string; status: string }[];
}

/** Waits until every delivery of the endpoint has succeeded, `count` of them. */
export async function untilDelivered(api: Api, endpoint: number, count: number, timeoutMs = 15_000): Promise<void> {
  await waitFor(
    async () => {
      const log = await deliveriesOf(api, endpoint);
      return log.length === count && log.every((item) => item.status === 'succeeded');
    },
    timeoutMs,
    `${count} succeeded deliveries of endpoint ${endpoint}`,
  );
}

/** How many times each event id reached a receiver's path. */
export function timesReceived(items: readonly { event: { id: string } }[]): Map<string, number> {
  const times = new Map<string, number>();
  for (const item of items) times.set(item.event.id, (times.get(item.event.id) ?? 0) + 1);
  return times;
}
