import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

/**
 * DECISIONS §2: `emailVerified` is reset to false whenever `email` changes, through every path that
 * can change it (PATCH, PUT, GraphQL `updateUser`). Emails are stored lower-cased, so an address
 * that differs only in case is the same address and keeps its verification.
 */
for (const dialect of DIALECTS) {
  describe(`changing a user's e-mail (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(dialect);
    });
    after(() => t?.close());

    /** A verified user (verify-email is an admin action), with their own token. */
    async function verifiedUser() {
      const created = await t.createUser();
      const res = await t.request('POST', `/api/users/${created.id}/verify-email`, { token: t.adminToken });
      assert.equal(res.body.emailVerified, true);
      return { ...created, email: String(created.user.email) };
    }
    const stored = async (id: number) => (await t.request('GET', `/api/users/${id}`, { token: t.adminToken })).body;
    const fresh = () => `changed-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;

    it('PATCH with a new address answers and stores emailVerified false', async () => {
      const user = await verifiedUser();
      const res = await t.request('PATCH', `/api/users/${user.id}`, { token: user.token, body: { email: fresh() } });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.emailVerified, false);
      assert.equal((await stored(user.id)).emailVerified, false);
    });

    it('PUT with a new address resets it too, also when an admin makes the change', async () => {
      const user = await verifiedUser();
      const res = await t.request('PUT', `/api/users/${user.id}`, {
        token: t.adminToken,
        body: { name: 'Replaced', email: fresh() },
      });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.emailVerified, false);
    });

    it('GraphQL updateUser with a new address resets it', async () => {
      const user = await verifiedUser();
      const res = await t.request('POST', '/graphql', {
        token: user.token,
        body: {
          query: 'mutation ($id: ID!, $email: String!) { updateUser(id: $id, input: { email: $email }) { id } }',
          variables: { id: String(user.id), email: fresh() },
        },
      });
      assert.equal(res.body.errors, undefined, res.text);
      assert.equal((await stored(user.id)).emailVerified, false);
    });

    it('keeps the verification when the address is the same, or differs only in letter case', async () => {
      const user = await verifiedUser();
      for (const body of [{ email: user.email }, { email: user.email.toUpperCase() }, { name: 'Only the name' }]) {
        const res = await t.request('PATCH', `/api/users/${user.id}`, { token: user.token, body });
        assert.equal(res.status, 200, res.text);
        assert.equal(res.body.emailVerified, true, JSON.stringify(body));
      }
      const put = await t.request('PUT', `/api/users/${user.id}`, {
        token: user.token,
        body: { name: 'Same address', email: user.email },
      });
      assert.equal(put.body.emailVerified, true);
    });
  });
}
