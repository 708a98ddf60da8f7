import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DATABASE_INDEPENDENT } from '../../../test/support/dialects.ts';
import { servedRoutes } from '../../../test/support/served-routes.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

/**
 * DECISIONS §13: a route reads only the query parameters it declares. Generated from the app's own route
 * tree, so a route added tomorrow is covered without editing this file. What no database decides (the
 * HTTP layer refuses or drops the parameter before any handler runs): one dialect.
 */

/** Names no route declares, and the one the attack used on lists that never declared it. */
const UNDECLARED = ['zz_undeclared', 'order', 'orderBy', 'dir'];

/**
 * The `/api/...` routes of the route table (their `/api/v1` and `/api/v2` copies share the handlers; the
 * bare `/api/v1` and `/api/v2` are the front door's copies of `/api`, which is not under `/api/`).
 */
function apiRoutes(t: TestServer): [method: string, url: string][] {
  return servedRoutes(t.server.app.http)
    .map((route) => route.split(' ') as [string, string])
    .filter(([, url]) => url.startsWith('/api/') && !/^\/api\/v\d+(?=\/|$)/.test(url));
}

/** The route's path with every parameter an id that exists (the ones this suite makes). */
const pathOf = (url: string, ids: Record<string, number>) =>
  url.slice('/api'.length).replace(/:(\w+)/g, (_, name: string) => String(ids[name] ?? 1));

for (const dialect of DATABASE_INDEPENDENT) {
  describe(`undeclared query parameters (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let ids: Record<string, number>;
    before(async () => {
      t = await startTestServer(dialect);
      const author = await t.createUser();
      const post = await t.request('POST', `/api/v2/users/${author.id}/posts`, {
        token: author.token,
        body: { title: 'Declared', content: 'Only declared parameters' },
      });
      const comment = await t.request('POST', `/api/v2/posts/${post.body.id}/comments`, {
        token: author.token,
        body: { text: 'A comment' },
      });
      await t.request('POST', `/api/v2/comments/${comment.body.id}/likes`, { token: author.token });
      ids = { id: author.id, userId: author.id, postId: post.body.id, commentId: comment.body.id };
    });
    after(() => t?.close());

    it('v2 answers 422 naming each undeclared query parameter on every route and method, before anything runs', async () => {
      const routes = apiRoutes(t);
      assert.ok(routes.length > 30, `only ${routes.length} routes found`);
      for (const [method, url] of routes) {
        // `order` is declared by the users list alone (the seed's parameter): there it is a direction.
        const names = UNDECLARED.filter((name) => !(name === 'order' && url === '/api/users'));
        const query = names.map((name) => `${name}=asc,(select%201)`).join('&');
        const answer = await t.request(method, `/api/v2${pathOf(url, ids)}?${query}`, { token: t.adminToken });
        assert.equal(
          answer.status,
          422,
          `${method} ${url}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`,
        );
        assert.equal(answer.body.error.code, 'VALIDATION_ERROR');
        const fields = (answer.body.error.details as { field: string }[]).map((detail) => detail.field).sort();
        assert.deepEqual(fields, [...names].sort(), `${method} ${url}`);
      }
      // Nothing ran: the post, comment and like are all still there.
      const likes = await t.request('GET', `/api/v2/comments/${ids.commentId}/likes`, { token: t.adminToken });
      assert.equal(likes.status, 200, JSON.stringify(likes.body));
      assert.equal(likes.body.data.length, 1);
    });

    it('v1 answers every GET route as if the undeclared parameters were absent', async () => {
      // The event stream never ends by itself (the v2 test above covers it: refused before it opens).
      for (const [method, url] of apiRoutes(t).filter(([m, u]) => m === 'GET' && !u.endsWith('/stream'))) {
        const path = `/api/v1${pathOf(url, ids)}`;
        const plain = await t.request(method, path, { token: t.adminToken });
        const names = UNDECLARED.filter((name) => !(name === 'order' && url === '/api/users'));
        const query = names.map((name) => `${name}=${encodeURIComponent("desc, (SELECT 1) --'")}`).join('&');
        const hostile = await t.request(method, `${path}?${query}`, { token: t.adminToken });
        assert.equal(
          hostile.status,
          plain.status,
          `${method} ${url}: ${hostile.status} (without: ${plain.status}) ${String(JSON.stringify(hostile.body)).slice(0, 300)}`,
        );
        if (Array.isArray(plain.body?.data)) {
          const idsOf = (body: { data: { id?: number; userId?: number }[] }) =>
            body.data.map((item) => item.id ?? item.userId);
          assert.deepEqual(idsOf(hostile.body), idsOf(plain.body), `${method} ${url}: another order or page`);
        }
      }
    });

    it('the users list reads its declared order as a direction, and refuses anything else in both versions', async () => {
      for (const version of ['v1', 'v2']) {
        const refused = await t.request('GET', `/api/${version}/users?sort=createdAt&order=desc,(select%201)`, {
          token: t.adminToken,
        });
        assert.equal(refused.status, 422);
        assert.deepEqual(refused.body.error.details, [{ field: 'order', message: 'must be one of: asc, desc' }]);
      }
      const ascending = await t.request('GET', '/api/v2/users?sort=createdAt&order=asc', { token: t.adminToken });
      const descending = await t.request('GET', '/api/v2/users?sort=createdAt&order=desc', { token: t.adminToken });
      const idsOf = (body: { data: { id: number }[] }) => body.data.map((user) => user.id);
      assert.deepEqual(idsOf(descending.body), idsOf(ascending.body).reverse());
    });

    it('passes bracketed names on a list with a filter grammar to its parser, which names an unknown operator in both versions', async () => {
      for (const version of ['v1', 'v2']) {
        const answer = await t.request('GET', `/api/${version}/posts?title[zz]=1`, { token: t.adminToken });
        assert.equal(answer.status, 422);
        assert.match(answer.body.error.details[0].message, /unknown operator "zz"/);
      }
    });
  });
}
