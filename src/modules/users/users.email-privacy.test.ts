import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { errorCodes, gql, GRAPHQL_TEST_ENV } from '../../../test/support/graphql-test-client.ts';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

/** DECISIONS §5: a user's email is shown to that user and to admins; REST answers null and GraphQL "" to anyone else. */
for (const dialect of DIALECTS) {
  describe(`who sees a user's email (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let owner: Awaited<ReturnType<TestServer['createUser']>>;
    let other: Awaited<ReturnType<TestServer['createUser']>>;
    let ownerEmail: string;
    let postId: number;
    before(async () => {
      t = await startTestServer(dialect, GRAPHQL_TEST_ENV);
      owner = await t.createUser();
      other = await t.createUser();
      ownerEmail = owner.user.email as string;
      const post = await t.request('POST', `/api/users/${owner.id}/posts`, {
        token: owner.token,
        body: { title: 'Mine', content: 'Text' },
      });
      assert.equal(post.status, 201);
      postId = post.body.id;
      const comment = await t.request('POST', `/api/posts/${postId}/comments`, {
        token: owner.token,
        body: { text: 'Me again' },
      });
      assert.equal(comment.status, 201);
    });
    after(() => t?.close());

    describe('REST', () => {
      it('answers "email": null for another user, the address to the user and to an admin', async () => {
        const seen = async (token: string) => (await t.request('GET', `/api/users/${owner.id}`, { token })).body.email;
        assert.equal(await seen(other.token), null);
        assert.equal(await seen(owner.token), ownerEmail);
        assert.equal(await seen(t.adminToken), ownerEmail);
        for (const prefix of ['/api/v1', '/api/v2']) {
          const read = await t.request('GET', `${prefix}/users/${owner.id}`, { token: other.token });
          assert.equal(read.status, 200);
          assert.ok('email' in read.body, 'the field is there, as null');
          assert.equal(read.body.email, null);
        }
      });

      it('shows a signed-in user only their own address in the users list, fields=email included; an admin sees all', async () => {
        for (const query of ['limit=100', 'limit=100&fields=email']) {
          const list = await t.request('GET', `/api/users?${query}`, { token: other.token });
          assert.equal(list.status, 200);
          const visible = list.body.data.filter((user: { email: string | null }) => user.email !== null);
          assert.deepEqual(
            visible.map((user: { id: number }) => user.id),
            [other.id],
            query,
          );
          const all = await t.request('GET', `/api/users?${query}`, { token: t.adminToken });
          assert.ok(
            all.body.data.every((user: { email: string | null }) => typeof user.email === 'string'),
            query,
          );
        }
      });

      it('refuses sorting users by email to anyone but an admin with 403', async () => {
        for (const order of ['asc', 'desc']) {
          const refused = await t.request('GET', `/api/users?sort=email&order=${order}`, { token: other.token });
          assert.equal(refused.status, 403);
          assert.equal(refused.body.error.code, 'FORBIDDEN');
        }
        const admin = await t.request('GET', '/api/users?sort=email', { token: t.adminToken });
        assert.equal(admin.status, 200);
        const emails = admin.body.data.map((user: { email: string }) => user.email);
        assert.deepEqual(emails, [...emails].sort());
        assert.equal((await t.request('GET', '/api/users?sort=name', { token: other.token })).status, 200);
      });

      it('answers a sign-up with its own address, and the user keeps reading and updating themselves with If-Match', async () => {
        const signUp = await t.request('POST', '/api/users', {
          body: { name: 'Fresh', email: 'fresh-privacy@example.com' },
        });
        assert.equal(signUp.status, 201);
        assert.equal(signUp.body.email, 'fresh-privacy@example.com');
        const read = await t.request('GET', `/api/users/${owner.id}`, { token: owner.token });
        const patched = await t.request('PATCH', `/api/users/${owner.id}`, {
          token: owner.token,
          body: { age: 40 },
          headers: { 'if-match': read.headers.get('etag')! },
        });
        assert.equal(patched.status, 200, 'the ETag the owner read matches the current user');
        assert.equal(patched.body.email, ownerEmail);
      });

      it("keeps the email in a customer's own record (the customer or an admin only)", async () => {
        const mine = await t.request('GET', `/api/customers/${owner.id}`, { token: owner.token });
        assert.equal(mine.status, 200);
        assert.equal(mine.body.email, ownerEmail);
        assert.equal((await t.request('GET', `/api/customers/${owner.id}`, { token: other.token })).status, 403);
      });
    });

    describe('GraphQL', () => {
      it('answers email "" for another user in user and users, the address to the user and to an admin', async () => {
        const one = async (token: string) =>
          (await gql(t, `{ user(id: "${owner.id}") { id email } }`, { token })).body.data.user.email;
        assert.equal(await one(other.token), '');
        assert.equal(await one(owner.token), ownerEmail);
        assert.equal(await one(t.adminToken), ownerEmail);
        const list = await gql(t, '{ users(limit: 100) { id email } }', { token: other.token });
        assert.deepEqual(errorCodes(list), []);
        const shown = list.body.data.users.filter((user: { email: string }) => user.email !== '');
        assert.deepEqual(
          shown.map((user: { id: string }) => user.id),
          [String(other.id)],
        );
        const admin = await gql(t, '{ users(limit: 100) { email } }', { token: t.adminToken });
        assert.ok(admin.body.data.users.every((user: { email: string }) => user.email.includes('@')));
      });

      it('hides the email of an author reached through posts and comments from everyone but that author and admins', async () => {
        const query = `{ post(id: "${postId}") { author { email posts { author { email } } } comments { author { email } } } }`;
        const emailsSeenBy = async (token: string) => {
          const res = await gql(t, query, { token });
          assert.deepEqual(errorCodes(res), []);
          const post = res.body.data.post;
          return [post.author.email, post.author.posts[0].author.email, post.comments[0].author.email];
        };
        assert.deepEqual(await emailsSeenBy(other.token), ['', '', '']);
        assert.deepEqual(await emailsSeenBy(owner.token), [ownerEmail, ownerEmail, ownerEmail]);
        assert.deepEqual(await emailsSeenBy(t.adminToken), [ownerEmail, ownerEmail, ownerEmail]);
        const listed = await gql(t, `{ posts(authorId: "${owner.id}") { author { email } } }`, { token: other.token });
        assert.deepEqual(listed.body.data.posts, [{ author: { email: '' } }]);
      });

      it('answers createUser with the new address', async () => {
        const res = await gql(
          t,
          'mutation { createUser(input: { name: "Gql Fresh", email: "gql-fresh-privacy@example.com" }) { email } }',
        );
        assert.equal(res.body.data.createUser.email, 'gql-fresh-privacy@example.com');
      });
    });
  });
}
