import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

/** DECISIONS §3 caching: a 200 `PUT`/`PATCH` carries the new ETag, so the next `If-Match` needs no GET. */
for (const dialect of DIALECTS) {
  describe(`the ETag of a 200 write (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(dialect);
    });
    after(() => t?.close());

    /** Two writes chained on the first one's ETag, then a third on the stale one: 200, 200, 412. */
    async function chain(path: string, token: string, writes: [method: string, body: object][]): Promise<void> {
      const [first, second] = writes;
      const one = await t.request(first![0], path, { body: first![1], token });
      assert.equal(one.status, 200, one.text);
      const etag = one.headers.get('etag');
      assert.match(etag ?? '', /^"[\w-]+"$/, `${first![0]} ${path} answers an ETag`);
      const read = await t.request('GET', path, { token });
      assert.equal(read.headers.get('etag'), etag, 'the ETag a GET would give');

      const two = await t.request(second![0], path, { body: second![1], token, headers: { 'if-match': etag! } });
      assert.equal(two.status, 200, two.text);
      const next = two.headers.get('etag');
      assert.ok(next && next !== etag, 'a new ETag for the new representation');
      const stale = await t.request(second![0], path, { body: second![1], token, headers: { 'if-match': etag! } });
      assert.equal(stale.status, 412);
      const chained = await t.request(first![0], path, { body: first![1], token, headers: { 'if-match': next } });
      assert.equal(chained.status, 200, chained.text);
    }

    it('chains PATCH and PUT of a user on the ETags they answer, under /api/v2 and /api/v1', async () => {
      const user = await t.createUser();
      const email = `etag-${user.id}@example.com`;
      for (const prefix of ['/api/v2', '/api/v1']) {
        await chain(`${prefix}/users/${user.id}`, user.token, [
          ['PATCH', { age: 30 }],
          ['PUT', { name: 'Replaced', email, age: 31 }],
        ]);
      }
    });

    it('chains PATCH and PUT of a product', async () => {
      const created = await t.request('POST', '/api/v2/products', {
        body: { name: 'Lamp', category: 'home', price: 19.99, stock: 3 },
        token: t.adminToken,
      });
      assert.equal(created.status, 201, created.text);
      await chain(`/api/v2/products/${created.body.id}`, t.adminToken, [
        ['PATCH', { stock: 4 }],
        ['PUT', { name: 'Lamp', category: 'home', price: 21.5, stock: 5 }],
      ]);
    });

    it('chains PATCHes of a webhook endpoint', async () => {
      const created = await t.request('POST', '/api/v2/webhooks', {
        body: { url: 'https://shop.example.com/hooks/etag' },
        token: t.adminToken,
      });
      assert.equal(created.status, 201, created.text);
      await chain(`/api/v2/webhooks/${created.body.id}`, t.adminToken, [
        ['PATCH', { description: 'first' }],
        ['PATCH', { description: 'second' }],
      ]);
    });

    it('gives no ETag to a write that failed', async () => {
      const user = await t.createUser();
      const refused = await t.request('PATCH', `/api/v2/users/${user.id}`, { body: { age: -1 }, token: user.token });
      assert.equal(refused.status, 422);
      assert.equal(refused.headers.get('etag'), null);
    });
  });
}
