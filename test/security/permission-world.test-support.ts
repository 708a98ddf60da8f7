import type { TestServer } from '../support/test-server.ts';

/** The smallest valid PNG (1×1): avatars are checked by their bytes, not their Content-Type. */
export const PNG_1X1 = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
  'base64',
);

export type Role = 'anonymous' | 'user' | 'owner' | 'admin';
export const ROLES: Role[] = ['anonymous', 'user', 'owner', 'admin'];

async function ok<T>(promise: Promise<{ status: number; body: T; text: string }>, what: string): Promise<T> {
  const res = await promise;
  if (res.status >= 300) throw new Error(`${what} failed: ${res.status} ${res.text}`);
  return res.body;
}

let worlds = 0;

/**
 * The resources a permission rule acts on, all belonging to `owner`; `user` is someone else.
 * Each piece is created on first use, so a rule pays only for what it touches. Rules that change
 * state get a fresh world per role (an owner's DELETE must not turn the admin's into a 404).
 */
export function createWorld(t: TestServer) {
  worlds += 1;
  const n = worlds;
  const memo = new Map<string, Promise<unknown>>();
  const once = <T>(name: string, make: () => Promise<T>): Promise<T> => {
    if (!memo.has(name)) memo.set(name, make());
    return memo.get(name) as Promise<T>;
  };

  const world = {
    owner: () =>
      once('owner', () => t.createUser({ name: `Owner ${n}`, email: `owner-${n}-${Date.now()}@example.com` })),
    other: () =>
      once('other', () => t.createUser({ name: `Other ${n}`, email: `other-${n}-${Date.now()}@example.com` })),
    async tokenOf(role: Role): Promise<string | undefined> {
      if (role === 'anonymous') return undefined;
      if (role === 'admin') return t.adminToken;
      return (await (role === 'owner' ? world.owner() : world.other())).token;
    },
    productId: () =>
      once('product', async () => {
        const body = { name: `Matrix product ${n}`, category: 'matrix', price: 9.5, stock: 100 };
        return (await ok(t.request('POST', '/api/products', { token: t.adminToken, body }), 'product')).id as number;
      }),
    postId: () =>
      once('post', async () => {
        const owner = await world.owner();
        const body = { title: `Post ${n}`, content: 'Owned by the owner' };
        return (await ok(t.request('POST', `/api/users/${owner.id}/posts`, { token: owner.token, body }), 'post'))
          .id as number;
      }),
    commentId: () =>
      once('comment', async () => {
        const owner = await world.owner();
        const postId = await world.postId();
        return (
          await ok(
            t.request('POST', `/api/posts/${postId}/comments`, { token: owner.token, body: { text: 'A comment' } }),
            'comment',
          )
        ).id as number;
      }),
    /** The comment, liked by its owner. */
    likedCommentId: () =>
      once('like', async () => {
        const owner = await world.owner();
        const commentId = await world.commentId();
        await ok(t.request('POST', `/api/comments/${commentId}/likes`, { token: owner.token }), 'like');
        return commentId;
      }),
    pendingOrderId: () => once('pending', () => world.placeOrder()),
    paidOrderId: () =>
      once('paid', async () => {
        const id = await world.placeOrder();
        const owner = await world.owner();
        await ok(t.request('POST', `/api/orders/${id}/pay`, { token: owner.token }), 'pay');
        return id;
      }),
    async placeOrder(): Promise<number> {
      const owner = await world.owner();
      const productId = await world.productId();
      const body = { items: [{ productId, quantity: 1 }] };
      return (await ok(t.request('POST', '/api/orders', { token: owner.token, body }), 'order')).id as number;
    },
    reportId: () =>
      once('report', async () => {
        const res = await t.request('POST', '/api/reports/generate', { token: t.adminToken, body: { type: 'users' } });
        if (res.status !== 202) throw new Error(`report failed: ${res.status} ${res.text}`);
        return Number(res.headers.get('location')!.split('/').pop());
      }),
    webhookId: () =>
      once('webhook', async () => {
        const body = { url: `https://example.com/world-${n}`, events: ['report.completed'] };
        return (await ok(t.request('POST', '/api/webhooks', { token: t.adminToken, body }), 'webhook')).id as number;
      }),
    /** A category only this world's product has (writes by filter match it alone). */
    productCategory: async () => {
      const id = await world.productId();
      await ok(
        t.request('PATCH', `/api/products/${id}`, { token: t.adminToken, body: { category: `matrix-${n}` } }),
        'category',
      );
      return String(n);
    },
    /**
     * The path of a user, post, comment or product of its own (not the world's, which other rows read),
     * the owner's where it has an author, moved to the trash by an admin: a restore's target.
     */
    async trashed(kind: 'users' | 'posts' | 'comments' | 'products'): Promise<string> {
      const owner = await world.owner();
      const admin = { token: t.adminToken };
      const made = async (path: string, token: string, body: unknown) =>
        (await ok(t.request('POST', path, { token, body }), kind)).id as number;
      let live: string;
      let item: string;
      if (kind === 'users') {
        live =
          item = `/api/users/${(await t.createUser({ name: 'Trashed', email: `trashed-${world.unique()}@example.com` })).id}`;
      } else if (kind === 'posts') {
        live =
          item = `/api/posts/${await made(`/api/users/${owner.id}/posts`, owner.token, { title: 'T', content: 'C' })}`;
      } else if (kind === 'comments') {
        const postId = await world.postId();
        const id = await made(`/api/posts/${postId}/comments`, owner.token, { text: 'Trashed' });
        live = `/api/posts/${postId}/comments/${id}`;
        item = `/api/comments/${id}`;
      } else {
        const body = { name: 'Trashed', category: 'matrix', price: 1, stock: 1 };
        live = item = `/api/products/${await made('/api/products', t.adminToken, body)}`;
      }
      const res = await t.request('DELETE', live, admin);
      if (res.status !== 204) throw new Error(`trash ${live} failed: ${res.status} ${res.text}`);
      return item;
    },
    /** The newest revision of the item at `path` (`/api/...`), read by the admin in v2 (DECISIONS §19). */
    async latestRevision(path: string): Promise<number> {
      const page = await ok(
        t.request('GET', `${path}/revisions`, { token: t.adminToken, headers: { 'api-version': '2' } }),
        'revisions',
      );
      return (page as { data: Array<{ rev: number }> }).data[0]!.rev;
    },
    /** The item's current ETag in v2 as `role` reads it (for a write's `If-Match`); `*` when it may not read it. */
    async etagOf(path: string, role: Role): Promise<string> {
      const res = await t.request('GET', path, { token: await world.tokenOf(role), headers: { 'api-version': '2' } });
      return res.status === 200 ? res.headers.get('etag')! : '*';
    },
    /** The owner's import of one post, finished (so a cancel is refused after the access check). */
    importId: () =>
      once('import', async () => {
        const owner = await world.owner();
        const res = await t.request('POST', '/api/v2/imports?resource=posts', {
          token: owner.token,
          raw: new TextEncoder().encode('title,content\nImported,Body\n'),
          headers: { 'content-type': 'text/csv' },
        });
        if (res.status !== 202) throw new Error(`import failed: ${res.status} ${res.text}`);
        for (let tries = 0; tries < 200; tries += 1) {
          const job = await t.request('GET', `/api/v2/imports/${res.body.id}`, { token: owner.token });
          if (job.body.status === 'done' || job.body.status === 'failed') return res.body.id as number;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        throw new Error('the import did not finish in 10 s');
      }),
    unique: () => `${n}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`,
  };
  return world;
}

export type World = ReturnType<typeof createWorld>;
