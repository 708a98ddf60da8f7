import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

for (const dialect of DIALECTS) {
  describe(`GET /me (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(dialect);
    });
    after(() => t?.close());

    it('answers the caller, with their e-mail, and a user’s rights', async () => {
      const person = await t.createUser({ name: 'Ada Lovelace' });
      const res = await t.request('GET', '/api/v2/me', { token: person.token });
      assert.equal(res.status, 200);
      assert.equal(res.body.user.id, person.id);
      assert.equal(res.body.user.name, 'Ada Lovelace');
      assert.equal(res.body.user.email, person.user.email);
      assert.equal(res.body.admin, false);
      assert.deepEqual(res.body.rights.products, { read: 'all', create: 'none', update: 'none', delete: 'none' });
      assert.deepEqual(res.body.rights.posts, { read: 'all', create: 'own', update: 'own', delete: 'own' });
      assert.equal(res.body.rights.webhooks.read, 'none');
      assert.deepEqual(res.body._links, {
        self: { href: '/api/v2/me' },
        user: { href: `/api/v2/users/${person.id}` },
      });
      assert.equal(res.headers.get('cache-control'), 'private, no-cache');
    });

    it('answers an admin with every right', async () => {
      const res = await t.request('GET', '/api/v2/me', { token: t.adminToken });
      assert.equal(res.status, 200);
      assert.equal(res.body.admin, true);
      for (const rights of Object.values(res.body.rights))
        assert.deepEqual(rights, { read: 'all', create: 'all', update: 'all', delete: 'all' });
    });

    it('reads the role from the database: a demoted admin’s token gets a user’s rights', async () => {
      const person = await t.createUser({ role: 'admin' });
      const before = await t.request('GET', '/api/v2/me', { token: person.token });
      assert.equal(before.body.admin, true);
      const demoted = await t.request('PATCH', `/api/v2/users/${person.id}`, {
        token: t.adminToken,
        body: { role: 'user' },
      });
      assert.equal(demoted.status, 200);
      const after = await t.request('GET', '/api/v2/me', { token: person.token });
      assert.equal(after.status, 200);
      assert.equal(after.body.admin, false);
      assert.equal(after.body.rights.products.create, 'none');
    });

    it('is 401 without a token and for a deleted user’s token', async () => {
      const none = await t.request('GET', '/api/v2/me');
      assert.equal(none.status, 401);
      assert.equal(none.body.error.code, 'UNAUTHORIZED');
      const person = await t.createUser();
      assert.equal((await t.request('DELETE', `/api/v2/users/${person.id}`, { token: t.adminToken })).status, 204);
      const gone = await t.request('GET', '/api/v2/me', { token: person.token });
      assert.equal(gone.status, 401);
    });
  });
}
