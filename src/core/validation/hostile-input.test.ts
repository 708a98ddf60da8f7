import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

const UNSTORABLE = 'must not contain NUL characters or unpaired UTF-16 surrogates';

/** Spellings of `id` that ajv's coercion used to accept, and ids past the integer columns. */
const notCanonical = (id: number) => [
  `0${id}`,
  `0x${id.toString(16)}`,
  `%20${id}`,
  `${id}%20`,
  `${id}e0`,
  `%2B${id}`,
  `${id}.0`,
  '2147483648',
  '99999999999999999999',
  '0',
  '-1',
];

for (const dialect of DIALECTS) {
  describe(`hostile input at the shared validation layer, REST (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let owner: { id: number; token: string };
    let ids: { product: number; post: number; comment: number; order: number; report: number };

    before(async () => {
      t = await startTestServer(dialect, { REPORT_WORKER: 'false' });
      // Every id is above 9 so `0x…` and `0…` spellings differ from the plain one.
      for (let i = 0; i < 10; i += 1) await t.createUser();
      owner = await t.createUser();
      const product = await t.request('POST', '/api/products', {
        token: t.adminToken,
        body: { name: 'P', category: 'c', price: 2, stock: 100 },
      });
      const post = await t.request('POST', `/api/users/${owner.id}/posts`, {
        token: owner.token,
        body: { title: 'T', content: 'C' },
      });
      const comment = await t.request('POST', `/api/posts/${post.body.id}/comments`, {
        token: owner.token,
        body: { text: 'x' },
      });
      await t.request('POST', `/api/comments/${comment.body.id}/likes`, { token: owner.token });
      const order = await t.request('POST', '/api/orders', {
        token: owner.token,
        body: { items: [{ productId: product.body.id, quantity: 1 }] },
      });
      const report = await t.request('POST', '/api/reports/generate', { token: t.adminToken, body: { type: 'users' } });
      ids = {
        product: product.body.id,
        post: post.body.id,
        comment: comment.body.id,
        order: order.body.id,
        report: Number(report.headers.get('location')!.split('/').pop()),
      };
    });
    after(() => t?.close());

    it('answers 404 NOT_FOUND, naming no id, for a path id that is not canonical decimal or beyond the integer range, on every resource', async () => {
      const routes = [
        (id: string) => `/api/users/${id}`,
        (id: string) => `/api/users/${id}/posts`,
        (id: string) => `/api/users/${id}/avatar`,
        (id: string) => `/api/posts/${id}`,
        (id: string) => `/api/posts/${id}/comments`,
        (id: string) => `/api/comments/${id}/likes`,
        (id: string) => `/api/products/${id}`,
        (id: string) => `/api/v2/products/${id}`,
        (id: string) => `/api/orders/${id}`,
        (id: string) => `/api/customers/${id}`,
        (id: string) => `/api/reports/${id}`,
      ];
      const real = [
        owner.id,
        owner.id,
        owner.id,
        ids.post,
        ids.post,
        ids.comment,
        ids.product,
        ids.product,
        ids.order,
        owner.id,
        ids.report,
      ];
      for (const [index, route] of routes.entries()) {
        const plain = await t.request('GET', route(String(real[index])), { token: t.adminToken });
        assert.equal(plain.status, 200, route(String(real[index])));
        for (const spelling of notCanonical(real[index]!)) {
          const res = await t.request('GET', route(spelling), { token: t.adminToken });
          assert.equal(res.status, 404, `${route(spelling)} → ${res.status} ${res.text}`);
          assert.deepEqual(res.body, { error: { code: 'NOT_FOUND', message: 'Resource not found' } });
        }
      }
      const nested = [
        `/api/posts/0${ids.post}/comments/${ids.comment}`,
        `/api/posts/${ids.post}/comments/0x${ids.comment.toString(16)}`,
        `/api/comments/${ids.comment}/likes/0${owner.id}`,
        `/api/users/${owner.id}/posts/${ids.post}e0`,
      ];
      for (const path of nested)
        assert.equal((await t.request('GET', path, { token: t.adminToken })).status, 404, path);
      for (const [method, path] of [
        ['PATCH', `/api/users/0${owner.id}`],
        ['DELETE', `/api/products/0x${ids.product.toString(16)}`],
        ['POST', `/api/orders/0${ids.order}/pay`],
      ] as const) {
        const res = await t.request(method, path, { token: t.adminToken, body: method === 'DELETE' ? undefined : {} });
        assert.equal(res.status, 404, `${method} ${path}`);
      }
    });

    it('refuses any body but none or {} on action POSTs with 422 naming the field, and acts on none or {}', async () => {
      const target = await t.createUser();
      const order = await t.request('POST', '/api/orders', {
        token: owner.token,
        body: { items: [{ productId: ids.product, quantity: 1 }] },
      });
      const actions = [
        [`/api/orders/${order.body.id}/pay`, owner.token],
        [`/api/orders/${order.body.id}/cancel`, owner.token],
        [`/api/orders/${ids.order}/refund`, t.adminToken],
        [`/api/users/${target.id}/verify-email`, t.adminToken],
        [`/api/users/${target.id}/actions/promote-to-admin`, t.adminToken],
        [`/api/comments/${ids.comment}/likes`, target.token],
      ] as const;
      for (const [path, token] of actions) {
        const field = await t.request('POST', path, { token, body: { amount: 99999 } });
        assert.equal(field.status, 422, `${path} ${field.text}`);
        assert.deepEqual(field.body.error.details, [{ field: 'amount', message: 'is not an allowed field' }]);
        for (const body of [[], 'x', 5, true])
          assert.equal((await t.request('POST', path, { token, body })).status, 422, `${path} ${JSON.stringify(body)}`);
      }
      const unchanged = await t.request('GET', `/api/users/${target.id}`, { token: t.adminToken });
      assert.equal(unchanged.body.role, 'user');
      assert.equal(unchanged.body.emailVerified, false);
      assert.equal(
        (await t.request('GET', `/api/orders/${order.body.id}`, { token: owner.token })).body.status,
        'pending',
      );
      assert.equal(
        (await t.request('POST', `/api/users/${target.id}/verify-email`, { token: t.adminToken })).status,
        200,
      );
      assert.equal(
        (await t.request('POST', `/api/users/${target.id}/actions/promote-to-admin`, { token: t.adminToken, body: {} }))
          .status,
        200,
      );
      assert.equal(
        (await t.request('POST', `/api/orders/${order.body.id}/cancel`, { token: owner.token, body: {} })).body.status,
        'cancelled',
      );
    });

    it('refuses a page or offset beyond the integer range with 422 naming it on every page-based list, and serves the last allowed page exactly', async () => {
      const lists = [
        '/api/users',
        '/api/products',
        '/api/v2/products',
        '/api/orders',
        `/api/users/${owner.id}/posts`,
        `/api/posts/${ids.post}/comments`,
        `/api/comments/${ids.comment}/likes`,
      ];
      for (const list of lists) {
        for (const page of ['1e20', '9999999999999999999999', '9007199254740993', '2147483648']) {
          const res = await t.request('GET', `${list}?page=${page}`, { token: t.adminToken });
          assert.equal(res.status, 422, `${list}?page=${page} → ${res.status} ${res.text}`);
          assert.deepEqual(
            res.body.error.details.map((d: { field: string }) => d.field),
            ['page'],
          );
        }
        const last = await t.request('GET', `${list}?page=2147483647&limit=100`, { token: t.adminToken });
        assert.equal(last.status, 200, `${list}: ${last.text}`);
        assert.deepEqual(last.body.data, []);
        assert.equal(last.body.pagination.page, 2147483647);
      }
      for (const offset of ['99999999999999999999', '1e20', '2147483648']) {
        const res = await t.request('GET', `/api/products?offset=${offset}`);
        assert.equal(res.status, 422, offset);
        assert.deepEqual(
          res.body.error.details.map((d: { field: string }) => d.field),
          ['offset'],
        );
      }
      const far = await t.request('GET', '/api/products?offset=2147483647&limit=1e20&page=-1e20');
      assert.equal(far.status, 200, far.text);
      assert.deepEqual(far.body.pagination.limit, 100);
    });

    it('refuses ids and integers beyond the integer range in bodies and filters with 422 naming the field', async () => {
      const cases: [string, string, unknown, string][] = [
        ['POST', '/api/orders', { items: [{ productId: 1e24, quantity: 1 }] }, 'items.0.productId'],
        ['POST', '/api/orders', { items: [{ productId: 2147483648, quantity: 1 }] }, 'items.0.productId'],
        ['POST', '/api/orders', { items: [{ productId: ids.product, quantity: 2147483648 }] }, 'items.0.quantity'],
        [
          'POST',
          '/api/orders',
          { customerId: 2147483648, items: [{ productId: ids.product, quantity: 1 }] },
          'customerId',
        ],
        ['PATCH', `/api/products/${ids.product}`, { stock: 2147483648 }, 'stock'],
        ['PATCH', `/api/users/${owner.id}`, { age: 1e21 }, 'age'],
      ];
      for (const [method, path, body, field] of cases) {
        const res = await t.request(method, path, { token: t.adminToken, body });
        assert.equal(res.status, 422, `${method} ${path} ${JSON.stringify(body)} → ${res.status} ${res.text}`);
        assert.deepEqual(
          res.body.error.details.map((d: { field: string }) => d.field),
          [field],
        );
      }
      const filter = await t.request('GET', '/api/orders?customerId=2147483648', { token: t.adminToken });
      assert.equal(filter.status, 422);
      assert.deepEqual(
        filter.body.error.details.map((d: { field: string }) => d.field),
        ['customerId'],
      );
    });

    it('refuses NUL characters and unpaired surrogates in bodies and query strings with 422 naming the field, and stores nothing', async () => {
      const count = async () =>
        (await t.server.db.selectFrom('users').select(t.server.db.fn.countAll().as('n')).executeTakeFirstOrThrow()).n;
      const before = String(await count());
      const json = (text: string) => ({ raw: text, headers: { 'content-type': 'application/json' } });
      const cases: [string, string, { raw: string; headers: Record<string, string> }, string][] = [
        ['POST', '/api/users', json('{"name":"\\u0000","email":"nul@example.com"}'), 'name'],
        ['POST', '/api/users', json('{"name":"a\\ud800","email":"surrogate@example.com"}'), 'name'],
        ['POST', '/api/users', json('{"name":"\\udc00b","email":"low@example.com"}'), 'name'],
        ['PUT', `/api/products/${ids.product}`, json('{"name":"\\u0000","category":"c","price":1,"stock":1}'), 'name'],
        ['POST', `/api/posts/${ids.post}/comments`, json('{"text":"a\\u0000b"}'), 'text'],
        ['PATCH', `/api/products/${ids.product}`, json('{"description":"nullable \\u0000"}'), 'description'],
        ['POST', '/api/orders', json(`{"items":[{"productId":1,"quantity":1}],"currency":"US\\u0000"}`), 'currency'],
        ['POST', '/api/auth/token', json('{"email":"x@example.com\\u0000","password":"whatever-password"}'), 'email'],
        ['POST', '/api/reports/generate', json('{"type":"users","from":"\\ud83d"}'), 'from'],
      ];
      for (const [method, path, options, field] of cases) {
        const res = await t.request(method, path, { token: t.adminToken, ...options });
        assert.equal(res.status, 422, `${method} ${path} ${options.raw} → ${res.status} ${res.text}`);
        // Other rules of the field may fail too (a date's pattern); the text rule is always among them.
        assert.deepEqual(
          res.body.error.details.filter((d: { message: string }) => d.message === UNSTORABLE),
          [{ field, message: UNSTORABLE }],
        );
      }
      for (const query of ['category=%00', 'search=%00', 'search=a%00', 'sort=name%00']) {
        const res = await t.request('GET', `/api/products?${query}`);
        assert.equal(res.status, 422, `${query} → ${res.status} ${res.text}`);
        assert.equal(res.body.error.details[0].field, query.split('=')[0]);
      }
      assert.equal(String(await count()), before);
      const paired = await t.request('POST', '/api/users', { body: { name: 'Emoji 😀', email: 'emoji@example.com' } });
      assert.equal(paired.status, 201);
      assert.equal(paired.body.name, 'Emoji 😀');
    });

    it('names the missing account, not the comment, when a deleted user likes a comment', async () => {
      const ghost = await t.createUser();
      assert.equal((await t.request('DELETE', `/api/users/${ghost.id}`, { token: t.adminToken })).status, 204);
      const res = await t.request('POST', `/api/comments/${ids.comment}/likes`, { token: ghost.token });
      // A deleted user's token may be refused before (401, DECISIONS §5); if the like is tried, the 404 names the user.
      assert.ok(res.status === 401 || res.status === 404, res.text);
      if (res.status === 404) assert.equal(res.body.error.message, `User ${ghost.id} not found`);
      assert.doesNotMatch(res.text, /Comment/);
    });
  });
}
