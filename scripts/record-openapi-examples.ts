/**
 * Records real answers of the service as the OpenAPI documents' examples (src/openapi-examples.json):
 * for each REST version, a fresh server on an in-memory database with the demo data, and one scripted
 * walk through every operation, as the demo users and the administrator would make it. What the
 * documents then show is what the service sent: links and methods per relation and order state,
 * real values. Run `npm run openapi:examples` after a change to a response shape, and commit the file.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config/config.ts';
import type { ApiVersion } from '../src/core/http/versioning.ts';
import type { RecordedExamples } from '../src/core/openapi/document-examples.ts';
import { OPENAPI_EXAMPLES_FILE } from '../src/openapi-examples.ts';
import { startServer } from '../src/server.ts';

const ADMIN = { email: 'admin@example.com', password: 'admin-password-for-examples' };
const ALICE = { email: 'alice@example.com', password: 'demo-password' };
/** The smallest valid PNG (1×1, transparent). */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

interface Call {
  method: string;
  /** The operation's path as the document names it, e.g. `/users/{userId}`. */
  template: string;
  path: string;
  token?: string | undefined;
  body?: unknown;
  image?: Buffer;
}

async function recordVersion(version: ApiVersion): Promise<RecordedExamples> {
  const config = loadConfig({
    NODE_ENV: 'development',
    PORT: '0',
    DATABASE_URL: 'sqlite::memory:',
    DEMO_DATA: 'true',
    LOG_LEVEL: 'silent',
    JWT_SECRET: 'openapi-examples-secret-0000000000000000',
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    REPORT_POLL_MS: '20',
    OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
  });
  const server = await startServer(config);
  const recorded: RecordedExamples = {};
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async function call({ method, template, path, token, body, image }: Call): Promise<any> {
    const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
    if (image) headers['content-type'] = 'image/png';
    else if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${server.url}/api/v${version}${path}`, {
      method,
      headers,
      body: image ?? (body === undefined ? undefined : JSON.stringify(body)),
    });
    const text = await response.text();
    if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    const answer = text ? JSON.parse(text) : undefined;
    const key = `${method} ${template}`;
    const entry = (recorded[key] ??= { responses: {} });
    if (body !== undefined && entry.request === undefined) entry.request = body;
    if (answer !== undefined) entry.responses[String(response.status)] ??= answer;
    return answer;
  }
  try {
    const alice = (await call({ method: 'POST', template: '/auth/token', path: '/auth/token', body: ALICE }))
      .access_token as string;
    const adminToken = (
      (await fetch(`${server.url}/api/v${version}/auth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(ADMIN),
      }).then((r) => r.json())) as { access_token: string }
    ).access_token;
    const users = await call({ method: 'GET', template: '/users', path: '/users?limit=10&sort=id', token: alice });
    const me = users.data.find((u: { email: string | null }) => u.email === ALICE.email);
    const aliceId = me.id as number;
    await call({ method: 'GET', template: '/users/{userId}', path: `/users/${aliceId}`, token: alice });

    const grace = await call({
      method: 'POST',
      template: '/users',
      path: '/users',
      body: { name: 'Grace Hopper', email: 'grace@example.com', age: 85, password: 'a-long-password' },
    });
    await call({
      method: 'PUT',
      template: '/users/{userId}',
      path: `/users/${grace.id}`,
      token: adminToken,
      body: { name: 'Grace Brewster Hopper', email: 'grace@example.com', age: 85 },
    });
    await call({
      method: 'PATCH',
      template: '/users/{userId}',
      path: `/users/${grace.id}`,
      token: adminToken,
      body: { age: 86 },
    });
    await call({
      method: 'POST',
      template: '/users/{userId}/verify-email',
      path: `/users/${grace.id}/verify-email`,
      token: adminToken,
    });
    await call({
      method: 'POST',
      template: '/users/{userId}/actions/promote-to-admin',
      path: `/users/${grace.id}/actions/promote-to-admin`,
      token: adminToken,
    });
    await call({
      method: 'PUT',
      template: '/users/{userId}/avatar',
      path: `/users/${aliceId}/avatar`,
      token: alice,
      image: PNG,
    });

    const products = await call({
      method: 'GET',
      template: '/products',
      path: '/products?category=books&sort=-price&limit=2',
      token: alice,
    });
    const productId = (
      products.data[0] ??
      (await call({ method: 'GET', template: '/products', path: '/products?limit=2', token: alice })).data[0]
    ).id as number;
    await call({ method: 'GET', template: '/products/{productId}', path: `/products/${productId}`, token: alice });
    const lamp = await call({
      method: 'POST',
      template: '/products',
      path: '/products',
      token: adminToken,
      body: { name: 'Desk lamp', category: 'home', price: 39.9, stock: 12, description: 'Warm light, dimmable' },
    });
    await call({
      method: 'PUT',
      template: '/products/{productId}',
      path: `/products/${lamp.id}`,
      token: adminToken,
      body: { name: 'Desk lamp', category: 'home', price: 34.9, stock: 12, description: 'Warm light, dimmable' },
    });
    await call({
      method: 'PATCH',
      template: '/products/{productId}',
      path: `/products/${lamp.id}`,
      token: adminToken,
      body: { stock: 10 },
    });

    const order = await call({
      method: 'POST',
      template: '/orders',
      path: '/orders',
      token: alice,
      body: { items: [{ productId: lamp.id, quantity: 2 }] },
    });
    await call({ method: 'GET', template: '/orders/{orderId}', path: `/orders/${order.id}`, token: alice });
    await call({ method: 'POST', template: '/orders/{orderId}/pay', path: `/orders/${order.id}/pay`, token: alice });
    await call({
      method: 'GET',
      template: '/orders/{orderId}/receipt',
      path: `/orders/${order.id}/receipt`,
      token: alice,
    });
    await call({
      method: 'POST',
      template: '/orders/{orderId}/refund',
      path: `/orders/${order.id}/refund`,
      token: adminToken,
    });
    const second = await call({
      method: 'POST',
      template: '/orders',
      path: '/orders',
      token: alice,
      body: { items: [{ productId: lamp.id, quantity: 1 }] },
    });
    await call({
      method: 'POST',
      template: '/orders/{orderId}/cancel',
      path: `/orders/${second.id}/cancel`,
      token: alice,
    });
    await call({ method: 'GET', template: '/orders', path: '/orders?limit=2', token: alice });
    await call({ method: 'GET', template: '/customers/{customerId}', path: `/customers/${aliceId}`, token: alice });

    const job = await call({
      method: 'POST',
      template: '/reports/generate',
      path: '/reports/generate',
      token: adminToken,
      body: { type: 'sales' },
    });
    for (let i = 0; i < 100; i += 1) {
      const report = (await fetch(`${server.url}/api/v${version}/reports/${job.id}`, {
        headers: { authorization: `Bearer ${adminToken}` },
      }).then((r) => r.json())) as { status: string };
      if (report.status === 'done') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await call({ method: 'GET', template: '/reports/{reportId}', path: `/reports/${job.id}`, token: adminToken });

    await call({ method: 'GET', template: '/posts', path: '/posts?limit=2', token: alice });
    const post = await call({
      method: 'POST',
      template: '/users/{userId}/posts',
      path: `/users/${aliceId}/posts`,
      token: alice,
      body: { title: 'Notes on batching', content: 'One query per level, not one per parent.' },
    });
    await call({ method: 'GET', template: '/posts/{postId}', path: `/posts/${post.id}`, token: alice });
    await call({
      method: 'GET',
      template: '/users/{userId}/posts',
      path: `/users/${aliceId}/posts?limit=2`,
      token: alice,
    });
    await call({
      method: 'GET',
      template: '/users/{userId}/posts/{postId}',
      path: `/users/${aliceId}/posts/${post.id}`,
      token: alice,
    });
    const comment = await call({
      method: 'POST',
      template: '/posts/{postId}/comments',
      path: `/posts/${post.id}/comments`,
      token: adminToken,
      body: { text: 'Measured it: five statements for the whole tree.' },
    });
    await call({
      method: 'GET',
      template: '/posts/{postId}/comments',
      path: `/posts/${post.id}/comments?limit=2`,
      token: alice,
    });
    await call({
      method: 'GET',
      template: '/posts/{postId}/comments/{commentId}',
      path: `/posts/${post.id}/comments/${comment.id}`,
      token: alice,
    });
    await call({
      method: 'POST',
      template: '/comments/{commentId}/likes',
      path: `/comments/${comment.id}/likes`,
      token: alice,
    });
    await call({
      method: 'POST',
      template: '/comments/{commentId}/likes',
      path: `/comments/${comment.id}/likes`,
      token: alice,
    });
    await call({
      method: 'GET',
      template: '/comments/{commentId}/likes',
      path: `/comments/${comment.id}/likes`,
      token: alice,
    });
    await call({
      method: 'GET',
      template: '/comments/{commentId}/likes/{userId}',
      path: `/comments/${comment.id}/likes/${aliceId}`,
      token: alice,
    });
    return recorded;
  } finally {
    await server.close();
  }
}

const examples: Partial<Record<ApiVersion, RecordedExamples>> = {};
for (const version of [1, 2] as const) examples[version] = await recordVersion(version);
writeFileSync(OPENAPI_EXAMPLES_FILE, `${JSON.stringify(examples, null, 2)}\n`);
console.log(
  `wrote ${fileURLToPath(OPENAPI_EXAMPLES_FILE)}: ${Object.keys(examples[2] ?? {}).length} operations per version`,
);
