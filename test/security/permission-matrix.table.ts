import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ADMIN_BUILD_DIR } from '../../src/admin-console/admin-console.ts';
import { GRAPHIQL_ASSETS_PREFIX, graphiqlFiles } from '../../src/graphql/graphiql-assets.ts';
import { PNG_1X1, type Role, type World } from './permission-world.test-support.ts';
import { GRAPHQL_RESOURCE_RULES } from './permission-matrix.graphql-resources.ts';

/**
 * THE permission matrix (DECISIONS §5): every REST route and GraphQL operation × caller → outcome.
 * `owner` owns the resource in the path (the user, the post's author, the order's customer);
 * `user` is another signed-in user. permission-matrix.test.ts walks every cell and fails when the
 * app has a route or an operation without a row here, so a new route needs a declared rule.
 */

export type Expected = Record<Role, number>;
const e = (anonymous: number, user: number, owner: number, admin: number): Expected => ({
  anonymous,
  user,
  owner,
  admin,
});

export interface RestRequest {
  path: string;
  body?: unknown;
  raw?: Uint8Array;
  headers?: Record<string, string>;
}

export interface RestRule {
  expect: Expected;
  /** The concrete request, built from the world of resources the rule acts on. */
  request(world: World, role: Role): Promise<RestRequest>;
  /** Changes state: every role gets a fresh world. */
  writes?: boolean;
}

const path = (p: string) => async () => ({ path: p });
const userPath =
  (suffix = '') =>
  async (w: World) => ({ path: `/api/users/${(await w.owner()).id}${suffix}` });
const postPath =
  (suffix = '') =>
  async (w: World) => ({ path: `/api/posts/${await w.postId()}${suffix}` });
const orderPath =
  (which: 'pendingOrderId' | 'paidOrderId', suffix = '') =>
  async (w: World) => ({ path: `/api/orders/${await w[which]()}${suffix}` });

/** v2's operations (batches, writes by filter, imports) are asked for v2 under `/api`. */
const V2 = { 'api-version': '2' };
/** A request of v2's alone: /api/v1 has no such route (404, or 405 naming v1's methods). */
export const v2Only = (request: RestRequest): boolean => request.headers?.['api-version'] === '2';
const batch = (resource: string, data: (w: World) => Promise<unknown>) => async (w: World) => ({
  path: `/api/${resource}/batch`,
  headers: V2,
  body: { operations: [{ op: 'create', data: await data(w) }] },
});
/** The restore of an item of its own the admin moved to the trash first (DECISIONS §19). */
const restore = (kind: 'users' | 'posts' | 'comments' | 'products') => async (w: World) => ({
  path: `${await w.trashed(kind)}/restore`,
});
/** An item of the world's (DECISIONS §19: revisions hang off it), by kind. */
const itemPath = async (w: World, kind: 'users' | 'posts' | 'comments' | 'products'): Promise<string> =>
  kind === 'users'
    ? `/api/users/${(await w.owner()).id}`
    : kind === 'posts'
      ? `/api/posts/${await w.postId()}`
      : kind === 'comments'
        ? `/api/comments/${await w.commentId()}`
        : `/api/products/${await w.productId()}`;
const revisionsOf = (kind: 'users' | 'posts' | 'comments' | 'products') => async (w: World) => ({
  path: `${await itemPath(w, kind)}/revisions`,
  headers: V2,
});
const revisionOf = (kind: 'users' | 'posts' | 'comments' | 'products') => async (w: World) => {
  const item = await itemPath(w, kind);
  return { path: `${item}/revisions/${await w.latestRevision(item)}`, headers: V2 };
};
/** The restore of the item's newest revision (a write with no change), with the item's ETag. */
const revisionRestore = (kind: 'users' | 'posts' | 'products') => async (w: World, role: Role) => {
  const item = await itemPath(w, kind);
  const rev = await w.latestRevision(item);
  return { path: `${item}/revisions/${rev}/restore`, headers: { ...V2, 'if-match': await w.etagOf(item, role) } };
};
const filterWrite = (body?: unknown) => async (w: World) => ({
  path: `/api/products?category=matrix-${await w.productCategory()}`,
  headers: { ...V2, prefer: 'max-affected=10' },
  ...(body === undefined ? {} : { body }),
});

const webhookPath =
  (suffix = '') =>
  async (w: World) => ({ path: `/api/webhooks/${await w.webhookId()}${suffix}` });

export const REST_RULES: Record<string, RestRule> = {
  // The front door (an index of links; a browser is sent to /docs), also at the bare /api/v1 and /api/v2: public.
  'GET /': { expect: e(200, 200, 200, 200), request: path('/') },
  'GET /api': { expect: e(200, 200, 200, 200), request: path('/api') },
  // Operations and documentation: public.
  'GET /healthz': { expect: e(200, 200, 200, 200), request: path('/healthz') },
  'GET /readyz': { expect: e(200, 200, 200, 200), request: path('/readyz') },
  'GET /metrics': { expect: e(200, 200, 200, 200), request: path('/metrics') },
  'GET /graphiql': { expect: e(200, 200, 200, 200), request: path('/graphiql') },
  'GET /graphiql/assets/:file': {
    expect: e(200, 200, 200, 200),
    request: async () => ({ path: `${GRAPHIQL_ASSETS_PREFIX}${graphiqlFiles().scripts[0]}` }),
  },
  // The admin console (DECISIONS §20): its page and scripts are public; what it shows is the API's answer.
  // `/admin` redirects (301) to `/admin/`; the test client follows it.
  'GET /admin': { expect: e(200, 200, 200, 200), request: path('/admin') },
  'GET /admin/': { expect: e(200, 200, 200, 200), request: path('/admin/') },
  'GET /admin/assets/:file': {
    expect: e(200, 200, 200, 200),
    request: async () => ({ path: `/admin/assets/${readdirSync(join(ADMIN_BUILD_DIR, 'assets'))[0]}` }),
  },
  // The API reference (Scalar) and the generated OpenAPI documents: public.
  'GET /docs': { expect: e(200, 200, 200, 200), request: path('/docs') },
  'GET /docs/': { expect: e(200, 200, 200, 200), request: path('/docs/') },
  'GET /docs/js/scalar.js': { expect: e(200, 200, 200, 200), request: path('/docs/js/scalar.js') },
  'GET /openapi.json': { expect: e(200, 200, 200, 200), request: path('/openapi.json?version=2') },
  'GET /api/openapi.json': { expect: e(200, 200, 200, 200), request: path('/api/openapi.json') },
  // The GraphQL endpoint itself is public; its operations have their own rows below.
  'POST /graphql': {
    expect: e(200, 200, 200, 200),
    request: async () => ({ path: '/graphql', body: { query: '{ __typename }' } }),
  },
  'GET /graphql': { expect: e(200, 200, 200, 200), request: path('/graphql?query=%7B__typename%7D') },

  'POST /api/auth/token': {
    expect: e(200, 200, 200, 200),
    request: async () => ({
      path: '/api/auth/token',
      body: { email: 'admin@example.com', password: 'admin-password-123' },
    }),
  },

  // Users: reads for any signed-in user; changes for the user themselves or an admin.
  'GET /api/users': { expect: e(401, 200, 200, 200), request: path('/api/users') },
  'POST /api/users': {
    expect: e(201, 201, 201, 201),
    writes: true,
    request: async (w) => ({
      path: '/api/users',
      body: { name: 'Signed Up', email: `signup-${w.unique()}@example.com` },
    }),
  },
  'GET /api/users/:userId': { expect: e(401, 200, 200, 200), request: userPath() },
  'PUT /api/users/:userId': {
    expect: e(401, 403, 200, 200),
    writes: true,
    request: async (w) => ({
      path: `/api/users/${(await w.owner()).id}`,
      body: { name: 'Replaced', email: `replaced-${w.unique()}@example.com` },
    }),
  },
  'PATCH /api/users/:userId': {
    expect: e(401, 403, 200, 200),
    writes: true,
    request: async (w) => ({ path: `/api/users/${(await w.owner()).id}`, body: { name: 'Patched' } }),
  },
  'DELETE /api/users/:userId': { expect: e(401, 403, 204, 204), writes: true, request: userPath() },
  'POST /api/users/:userId/verify-email': {
    expect: e(401, 403, 403, 200),
    writes: true,
    request: userPath('/verify-email'),
  },
  'POST /api/users/:userId/actions/promote-to-admin': {
    expect: e(401, 403, 403, 200),
    writes: true,
    request: userPath('/actions/promote-to-admin'),
  },
  'GET /api/users/:userId/avatar': { expect: e(401, 200, 200, 200), request: userPath('/avatar') },
  'PUT /api/users/:userId/avatar': {
    expect: e(401, 403, 201, 201),
    writes: true,
    request: async (w) => ({
      path: `/api/users/${(await w.owner()).id}/avatar`,
      raw: PNG_1X1,
      headers: { 'content-type': 'image/png' },
    }),
  },
  'GET /api/users/:userId/posts': { expect: e(401, 200, 200, 200), request: userPath('/posts') },
  'POST /api/users/:userId/posts': {
    expect: e(401, 403, 201, 201),
    writes: true,
    request: async (w) => ({
      path: `/api/users/${(await w.owner()).id}/posts`,
      body: { title: 'Matrix', content: 'Body' },
    }),
  },
  'GET /api/users/:userId/posts/:postId': {
    expect: e(401, 200, 200, 200),
    request: async (w) => ({ path: `/api/users/${(await w.owner()).id}/posts/${await w.postId()}` }),
  },
  // Post edits (DECISIONS §19): the author or an admin, under either path.
  'PUT /api/users/:userId/posts/:postId': {
    expect: e(401, 403, 200, 200),
    writes: true,
    request: async (w) => ({
      path: `/api/users/${(await w.owner()).id}/posts/${await w.postId()}`,
      body: { title: 'Replaced', content: 'Replaced' },
    }),
  },
  'PATCH /api/users/:userId/posts/:postId': {
    expect: e(401, 403, 200, 200),
    writes: true,
    request: async (w) => ({
      path: `/api/users/${(await w.owner()).id}/posts/${await w.postId()}`,
      body: { title: 'Patched' },
    }),
  },
  'DELETE /api/users/:userId/posts/:postId': {
    expect: e(401, 403, 204, 204),
    writes: true,
    request: async (w) => ({ path: `/api/users/${(await w.owner()).id}/posts/${await w.postId()}` }),
  },
  'PUT /api/posts/:postId': {
    expect: e(401, 403, 200, 200),
    writes: true,
    request: async (w) => ({ ...(await postPath()(w)), body: { title: 'Replaced', content: 'Replaced' } }),
  },
  'PATCH /api/posts/:postId': {
    expect: e(401, 403, 200, 200),
    writes: true,
    request: async (w) => ({ ...(await postPath()(w)), body: { title: 'Patched' } }),
  },
  'DELETE /api/posts/:postId': { expect: e(401, 403, 204, 204), writes: true, request: postPath() },
  // The trash (DECISIONS §19): who may delete a thing may restore it (an author their post or comment);
  // users and products are restored by admins.
  'POST /api/users/:userId/restore': { expect: e(401, 403, 403, 200), writes: true, request: restore('users') },
  'POST /api/posts/:postId/restore': { expect: e(401, 403, 200, 200), writes: true, request: restore('posts') },
  'POST /api/comments/:commentId/restore': {
    expect: e(401, 403, 200, 200),
    writes: true,
    request: restore('comments'),
  },
  'POST /api/products/:productId/restore': {
    expect: e(401, 403, 403, 200),
    writes: true,
    request: restore('products'),
  },
  // Erase (DECISIONS §19, v2): admins only, the user themselves included.
  'POST /api/users/:userId/erase': {
    expect: e(401, 403, 403, 200),
    writes: true,
    request: async (w) => ({ ...(await userPath('/erase')(w)), headers: V2 }),
  },
  // Batches (DECISIONS §18, v2): each as its single writes are.
  'POST /api/users/batch': {
    expect: e(401, 403, 403, 200),
    writes: true,
    request: batch('users', async (w) => ({ name: 'Batched', email: `batch-${w.unique()}@example.com` })),
  },
  'POST /api/posts/batch': {
    expect: e(401, 200, 200, 200),
    writes: true,
    request: batch('posts', async () => ({ title: 'Batched', content: 'Body' })),
  },
  'POST /api/products/batch': {
    expect: e(401, 403, 403, 200),
    writes: true,
    request: batch('products', async () => ({ name: 'Batched', category: 'matrix', price: 1, stock: 1 })),
  },
  // Writes by filter (DECISIONS §18, v2): admins.
  'PATCH /api/products': { expect: e(401, 403, 403, 200), writes: true, request: filterWrite({ price: 4 }) },
  'DELETE /api/products': { expect: e(401, 403, 403, 200), writes: true, request: filterWrite() },
  // Imports (DECISIONS §18, v2): anyone signed in imports posts (as themselves); a job is its owner's or an
  // admin's (someone else's reads as 404); a finished job is not cancelled (409, after the access check).
  'POST /api/imports': {
    expect: e(401, 202, 202, 202),
    writes: true,
    request: async () => ({
      path: '/api/imports?resource=posts',
      headers: { ...V2, 'content-type': 'text/csv' },
      raw: new TextEncoder().encode('title,content\nImported,Body\n'),
    }),
  },
  'GET /api/imports/:importId': {
    expect: e(401, 404, 200, 200),
    request: async (w) => ({ path: `/api/imports/${await w.importId()}`, headers: V2 }),
  },
  'GET /api/imports/:importId/errors': {
    expect: e(401, 404, 200, 200),
    request: async (w) => ({ path: `/api/imports/${await w.importId()}/errors`, headers: V2 }),
  },
  'POST /api/imports/:importId/cancel': {
    expect: e(401, 404, 409, 409),
    writes: true,
    request: async (w) => ({ path: `/api/imports/${await w.importId()}/cancel`, headers: V2 }),
  },

  // Posts and comments: reads for any signed-in user; a comment is deleted by its author, the post's author or an admin.
  'GET /api/posts': { expect: e(401, 200, 200, 200), request: path('/api/posts') },
  'GET /api/posts/:postId': { expect: e(401, 200, 200, 200), request: postPath() },
  'GET /api/posts/:postId/comments': { expect: e(401, 200, 200, 200), request: postPath('/comments') },
  'POST /api/posts/:postId/comments': {
    expect: e(401, 201, 201, 201),
    writes: true,
    request: async (w) => ({ ...(await postPath('/comments')(w)), body: { text: 'Hello' } }),
  },
  'GET /api/comments': { expect: e(401, 200, 200, 200), request: path('/api/comments') },
  'GET /api/comments/:commentId': {
    expect: e(401, 200, 200, 200),
    request: async (w) => ({ path: `/api/comments/${await w.commentId()}` }),
  },
  'GET /api/me': { expect: e(401, 200, 200, 200), request: path('/api/me') },
  'GET /api/posts/:postId/comments/:commentId': {
    expect: e(401, 200, 200, 200),
    request: async (w) => ({ path: `/api/posts/${await w.postId()}/comments/${await w.commentId()}` }),
  },
  'DELETE /api/posts/:postId/comments/:commentId': {
    expect: e(401, 403, 204, 204),
    writes: true,
    request: async (w) => ({ path: `/api/posts/${await w.postId()}/comments/${await w.commentId()}` }),
  },

  // Likes: any signed-in user likes as themselves (201, or 200 when already liked); DELETE removes the caller's own like (204 even if none).
  'GET /api/comments/:commentId/likes': {
    expect: e(401, 200, 200, 200),
    request: async (w) => ({ path: `/api/comments/${await w.likedCommentId()}/likes` }),
  },
  'POST /api/comments/:commentId/likes': {
    expect: e(401, 201, 200, 201),
    writes: true,
    request: async (w) => ({ path: `/api/comments/${await w.likedCommentId()}/likes` }),
  },
  'DELETE /api/comments/:commentId/likes': {
    expect: e(401, 204, 204, 204),
    writes: true,
    request: async (w) => ({ path: `/api/comments/${await w.likedCommentId()}/likes` }),
  },
  'GET /api/comments/:commentId/likes/:userId': {
    expect: e(401, 200, 200, 200),
    request: async (w) => ({ path: `/api/comments/${await w.likedCommentId()}/likes/${(await w.owner()).id}` }),
  },

  // Orders and customers: the customer or an admin; someone else's order reads as 404, their customer record 403. Refund: admin only.
  'POST /api/orders': {
    expect: e(401, 201, 201, 201),
    writes: true,
    request: async (w) => ({ path: '/api/orders', body: { items: [{ productId: await w.productId(), quantity: 1 }] } }),
  },
  'GET /api/orders': { expect: e(401, 200, 200, 200), request: path('/api/orders') },
  'GET /api/orders/aggregate': { expect: e(401, 200, 200, 200), request: path('/api/orders/aggregate?groupBy=status') },
  'GET /api/orders/:orderId': { expect: e(401, 404, 200, 200), request: orderPath('pendingOrderId') },
  'POST /api/orders/:orderId/pay': {
    expect: e(401, 404, 200, 200),
    writes: true,
    request: orderPath('pendingOrderId', '/pay'),
  },
  'POST /api/orders/:orderId/cancel': {
    expect: e(401, 404, 200, 200),
    writes: true,
    request: orderPath('pendingOrderId', '/cancel'),
  },
  'POST /api/orders/:orderId/refund': {
    expect: e(401, 404, 403, 200),
    writes: true,
    request: orderPath('paidOrderId', '/refund'),
  },
  'GET /api/orders/:orderId/receipt': { expect: e(401, 404, 200, 200), request: orderPath('paidOrderId', '/receipt') },
  'GET /api/customers': { expect: e(401, 403, 403, 200), request: path('/api/customers') },
  'GET /api/customers/:customerId': {
    expect: e(401, 403, 200, 200),
    request: async (w) => ({ path: `/api/customers/${(await w.owner()).id}` }),
  },

  // Revisions (DECISIONS §19, v2): an item's history for admins and its owner (a product has none but
  // the admin); a restore for whoever may update the item; the audit for admins.
  'GET /api/users/:userId/revisions': { expect: e(401, 403, 200, 200), request: revisionsOf('users') },
  'GET /api/users/:userId/revisions/:rev': { expect: e(401, 403, 200, 200), request: revisionOf('users') },
  'POST /api/users/:userId/revisions/:rev/restore': {
    expect: e(401, 403, 200, 200),
    writes: true,
    request: revisionRestore('users'),
  },
  'GET /api/posts/:postId/revisions': { expect: e(401, 403, 200, 200), request: revisionsOf('posts') },
  'GET /api/posts/:postId/revisions/:rev': { expect: e(401, 403, 200, 200), request: revisionOf('posts') },
  'POST /api/posts/:postId/revisions/:rev/restore': {
    expect: e(401, 403, 200, 200),
    writes: true,
    request: revisionRestore('posts'),
  },
  'GET /api/comments/:commentId/revisions': { expect: e(401, 403, 200, 200), request: revisionsOf('comments') },
  'GET /api/comments/:commentId/revisions/:rev': {
    expect: e(401, 403, 200, 200),
    request: revisionOf('comments'),
  },
  'GET /api/products/:productId/revisions': { expect: e(401, 403, 403, 200), request: revisionsOf('products') },
  'GET /api/products/:productId/revisions/:rev': {
    expect: e(401, 403, 403, 200),
    request: revisionOf('products'),
  },
  'POST /api/products/:productId/revisions/:rev/restore': {
    expect: e(401, 403, 403, 200),
    writes: true,
    request: revisionRestore('products'),
  },
  'GET /api/audit': { expect: e(401, 403, 403, 200), request: async () => ({ path: '/api/audit', headers: V2 }) },

  // Events: admin only. The stream never ends, so it is asked with a refused limit: the access check comes first.
  'GET /api/events': { expect: e(401, 403, 403, 200), request: path('/api/events') },
  'GET /api/events/stream': { expect: e(401, 403, 403, 422), request: path('/api/events/stream?limit=0') },

  // Webhooks: admin only. The endpoint's URL is never called here (no event reaches it during the matrix).
  'POST /api/webhooks': {
    expect: e(401, 403, 403, 201),
    writes: true,
    request: async () => ({ path: '/api/webhooks', body: { url: 'https://example.com/matrix' } }),
  },
  'GET /api/webhooks': { expect: e(401, 403, 403, 200), request: path('/api/webhooks') },
  'GET /api/webhooks/:webhookId': { expect: e(401, 403, 403, 200), request: webhookPath() },
  'PATCH /api/webhooks/:webhookId': {
    expect: e(401, 403, 403, 200),
    writes: true,
    request: async (w) => ({ ...(await webhookPath()(w)), body: { description: 'patched' } }),
  },
  'DELETE /api/webhooks/:webhookId': { expect: e(401, 403, 403, 204), writes: true, request: webhookPath() },
  'POST /api/webhooks/:webhookId/rotate-secret': {
    expect: e(401, 403, 403, 200),
    writes: true,
    request: webhookPath('/rotate-secret'),
  },
  'GET /api/webhooks/:webhookId/deliveries': {
    expect: e(401, 403, 403, 200),
    request: webhookPath('/deliveries'),
  },
  'POST /api/webhooks/:webhookId/deliveries/:deliveryId/retry': {
    // No delivery exists for the world's endpoint: the admin gets past the access check to a 404.
    expect: e(401, 403, 403, 404),
    writes: true,
    request: webhookPath('/deliveries/1/retry'),
  },
  'POST /api/webhooks/:webhookId/replay': {
    expect: e(401, 403, 403, 202),
    writes: true,
    request: async (w) => ({ ...(await webhookPath('/replay')(w)), body: { since: new Date().toISOString() } }),
  },

  // Reports: admin only.
  'POST /api/reports/generate': {
    expect: e(401, 403, 403, 202),
    writes: true,
    request: async () => ({ path: '/api/reports/generate', body: { type: 'sales' } }),
  },
  'GET /api/reports/:reportId': {
    expect: e(401, 403, 403, 200),
    request: async (w) => ({ path: `/api/reports/${await w.reportId()}` }),
  },

  // Products: public reads, admin writes.
  'GET /api/products': { expect: e(200, 200, 200, 200), request: path('/api/products') },
  'GET /api/products/aggregate': {
    expect: e(200, 200, 200, 200),
    request: path('/api/products/aggregate?groupBy=category'),
  },
  'POST /api/products': {
    expect: e(401, 403, 403, 201),
    writes: true,
    request: async () => ({
      path: '/api/products',
      body: { name: 'New product', category: 'matrix', price: 1, stock: 1 },
    }),
  },
  'GET /api/products/:productId': {
    expect: e(200, 200, 200, 200),
    request: async (w) => ({ path: `/api/products/${await w.productId()}` }),
  },
  'PUT /api/products/:productId': {
    expect: e(401, 403, 403, 200),
    writes: true,
    request: async (w) => ({
      path: `/api/products/${await w.productId()}`,
      body: { name: 'Replaced', category: 'matrix', price: 2, stock: 2 },
    }),
  },
  'PATCH /api/products/:productId': {
    expect: e(401, 403, 403, 200),
    writes: true,
    request: async (w) => ({ path: `/api/products/${await w.productId()}`, body: { price: 3 } }),
  },
  'DELETE /api/products/:productId': {
    expect: e(401, 403, 403, 204),
    writes: true,
    request: async (w) => ({ path: `/api/products/${await w.productId()}` }),
  },
};

/** GraphQL: `ok`, or the `extensions.code` of the error. Same rules as REST (DECISIONS §6). */
export type GraphQLOutcome = 'ok' | 'UNAUTHENTICATED' | 'FORBIDDEN' | 'NOT_FOUND';

export interface GraphQLRule {
  expect: Record<Role, GraphQLOutcome>;
  writes?: boolean;
  operation(world: World): Promise<{ query: string; variables?: Record<string, unknown> }>;
}

const g = (anonymous: GraphQLOutcome, user: GraphQLOutcome, owner: GraphQLOutcome, admin: GraphQLOutcome) => ({
  anonymous,
  user,
  owner,
  admin,
});

export const GRAPHQL_RULES: Record<string, GraphQLRule> = {
  'query user': {
    expect: g('UNAUTHENTICATED', 'ok', 'ok', 'ok'),
    operation: async (w) => ({
      query: 'query ($id: ID!) { user(id: $id) { id name } }',
      variables: { id: String((await w.owner()).id) },
    }),
  },
  'query users': {
    expect: g('UNAUTHENTICATED', 'ok', 'ok', 'ok'),
    operation: async () => ({ query: '{ users { id } }' }),
  },
  'query post': {
    expect: g('UNAUTHENTICATED', 'ok', 'ok', 'ok'),
    operation: async (w) => ({
      query: 'query ($id: ID!) { post(id: $id) { id title } }',
      variables: { id: String(await w.postId()) },
    }),
  },
  'query posts': {
    expect: g('UNAUTHENTICATED', 'ok', 'ok', 'ok'),
    operation: async () => ({ query: '{ posts { id } }' }),
  },
  'query usersConnection': {
    expect: g('UNAUTHENTICATED', 'ok', 'ok', 'ok'),
    operation: async () => ({
      query: '{ usersConnection(limit: 2) { nodes { id } pageInfo { hasNextPage endCursor } } }',
    }),
  },
  'query postsConnection': {
    expect: g('UNAUTHENTICATED', 'ok', 'ok', 'ok'),
    operation: async () => ({
      query: '{ postsConnection(limit: 2) { nodes { id } pageInfo { hasNextPage endCursor } } }',
    }),
  },
  'mutation createUser': {
    expect: g('ok', 'ok', 'ok', 'ok'),
    writes: true,
    operation: async (w) => ({
      query: 'mutation ($input: CreateUserInput!) { createUser(input: $input) { id } }',
      variables: { input: { name: 'GraphQL Sign-up', email: `gql-${w.unique()}@example.com` } },
    }),
  },
  'mutation updateUser': {
    expect: g('UNAUTHENTICATED', 'FORBIDDEN', 'ok', 'ok'),
    writes: true,
    operation: async (w) => ({
      query: 'mutation ($id: ID!) { updateUser(id: $id, input: { name: "Renamed" }) { id } }',
      variables: { id: String((await w.owner()).id) },
    }),
  },
  'mutation deleteUser': {
    expect: g('UNAUTHENTICATED', 'FORBIDDEN', 'ok', 'ok'),
    writes: true,
    operation: async (w) => ({
      query: 'mutation ($id: ID!) { deleteUser(id: $id) }',
      variables: { id: String((await w.owner()).id) },
    }),
  },
  'mutation createPost': {
    expect: g('UNAUTHENTICATED', 'FORBIDDEN', 'ok', 'ok'),
    writes: true,
    operation: async (w) => ({
      query: 'mutation ($a: ID!) { createPost(input: { title: "T", content: "C", authorId: $a }) { id } }',
      variables: { a: String((await w.owner()).id) },
    }),
  },
  // DECISIONS §15: products, orders, comments by id, likes.
  ...GRAPHQL_RESOURCE_RULES,
};
