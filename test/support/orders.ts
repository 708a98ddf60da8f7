import { loadConfig } from '../../src/config/config.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { checkFetched } from './checked-answer.ts';
import type { TestResponse, TestServer } from './test-server.ts';

/** Test helpers shared by the orders, customers and reports suites. */

/**
 * Settings of these suites: no background report worker unless a test wants one, and no load
 * shedding (start-up work can lag the event loop and turn the first requests into 503s).
 */
export const QUIET_ENV = { REPORT_WORKER: 'false', OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0' };

let productCounter = 0;

/** Products are set up directly in the database: the products API belongs to another module. */
export async function createProduct(
  t: TestServer,
  fields: { priceCents?: number; stock?: number; name?: string } = {},
) {
  productCounter += 1;
  const at = new Date().toISOString();
  return t.server.db
    .insertInto('products')
    .values({
      name: fields.name ?? `Product ${productCounter}`,
      category: 'test',
      price_cents: fields.priceCents ?? 1000,
      stock: fields.stock ?? 10,
      image: null,
      description: null,
      created_at: at,
      updated_at: at,
    })
    .returning(['id', 'name', 'price_cents', 'stock'])
    .executeTakeFirstOrThrow();
}

export async function stockOf(t: TestServer, productId: number): Promise<number> {
  const row = await t.server.db
    .selectFrom('products')
    .select('stock')
    .where('id', '=', productId)
    .executeTakeFirstOrThrow();
  return Number(row.stock);
}

export async function placeOrder(
  t: TestServer,
  token: string,
  items: { productId: number; quantity: number }[],
): Promise<TestResponse> {
  const res = await t.request('POST', '/api/orders', { token, body: { items } });
  if (res.status !== 201) throw new Error(`placing an order failed: ${res.status} ${res.text}`);
  return res;
}

/** A customer with a product and a pending order of `quantity` units of it. */
export async function pendingOrder(
  t: TestServer,
  options: { stock?: number; quantity?: number; priceCents?: number } = {},
) {
  const customer = await t.createUser();
  const product = await createProduct(t, { stock: options.stock ?? 10, priceCents: options.priceCents ?? 1250 });
  const res = await placeOrder(t, customer.token, [{ productId: product.id, quantity: options.quantity ?? 2 }]);
  return {
    customer,
    product,
    order: res.body as { id: number; status: string; _links: Record<string, { href: string; method?: string }> },
  };
}

/** Drives a new order into `status` through the API (admin refunds). */
export async function orderIn(
  t: TestServer,
  status: 'pending' | 'paid' | 'cancelled' | 'refunded',
  options: { stock?: number; quantity?: number } = {},
) {
  const setup = await pendingOrder(t, options);
  const id = setup.order.id;
  const act = async (action: string, token: string) => {
    const res = await t.request('POST', `/api/orders/${id}/${action}`, { token });
    if (res.status !== 200) throw new Error(`${action} failed: ${res.status} ${res.text}`);
  };
  if (status === 'paid' || status === 'refunded') await act('pay', setup.customer.token);
  if (status === 'refunded') await act('refund', t.adminToken);
  if (status === 'cancelled') await act('cancel', setup.customer.token);
  return setup;
}

export interface Instance {
  server: RunningServer;
  request(
    method: string,
    path: string,
    options?: { token?: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<TestResponse>;
  close(): Promise<void>;
}

/**
 * Another server process-alike on the same database as `t` (same secret, so tokens work): a second
 * instance behind a load balancer, or the service after a restart. Closing it leaves the database.
 * Its answers are checked against the OpenAPI document, as `t.request()`'s are.
 */
export async function startInstanceOn(t: TestServer, env: Record<string, string> = {}): Promise<Instance> {
  const config = loadConfig({
    NODE_ENV: 'test',
    PORT: '0',
    DATABASE_URL: t.config.DATABASE_URL,
    DEMO_DATA: 'false',
    LOG_LEVEL: 'silent',
    JWT_SECRET: t.config.jwtSecret,
    ADMIN_EMAIL: t.config.ADMIN_EMAIL,
    ADMIN_PASSWORD: t.config.ADMIN_PASSWORD ?? 'admin-password-123',
    ...QUIET_ENV,
    ...env,
  });
  const server = await startServer(config);
  return {
    server,
    async request(method, path, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      if (options.token) headers.authorization = `Bearer ${options.token}`;
      if (options.body !== undefined) headers['content-type'] = 'application/json';
      const response = await fetch(`${server.url}${path}`, {
        method,
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
      });
      return checkFetched(method, response);
    },
    close: () => server.close(),
  };
}
