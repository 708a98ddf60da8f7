import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { gql, GRAPHQL_TEST_ENV } from '../../../test/support/graphql-test-client.ts';
import { statementsOf } from '../../../test/support/statements-of.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

/** DECISIONS §15: the `User` fields REST shows and the lists filter by. */
const FIELDS = 'id role status emailVerified createdAt updatedAt';

for (const dialect of DIALECTS) {
  describe(
    `GraphQL User's role, status, emailVerified and timestamps (${dialect.name})`,
    { skip: dialect.skip },
    () => {
      let t: TestServer;
      let reader: { id: number; token: string };
      let other: { id: number; token: string };
      before(async () => {
        t = await startTestServer(dialect, GRAPHQL_TEST_ENV);
        reader = await t.createUser();
        other = await t.createUser({ status: 'inactive' });
        await t.request('POST', `/api/v2/users/${other.id}/verify-email`, { token: t.adminToken });
      });
      after(() => t?.close());

      it('shows another user the same values as REST v2, and still not their e-mail', async () => {
        const rest = (await t.request('GET', `/api/v2/users/${other.id}`, { token: reader.token })).body;
        const res = await gql(t, `query ($id: ID!) { user(id: $id) { ${FIELDS} email } }`, {
          variables: { id: String(other.id) },
          token: reader.token,
        });
        assert.equal(res.body.errors, undefined, res.text);
        assert.deepEqual(res.body.data.user, {
          id: String(other.id),
          role: 'user',
          status: 'inactive',
          emailVerified: true,
          createdAt: rest.createdAt,
          updatedAt: rest.updatedAt,
          email: '',
        });
        assert.match(res.body.data.user.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      });

      it('answers them in lists and on related users, filtered by the same values', async () => {
        const res = await gql(
          t,
          `{ users(limit: 100, filter: { status: { eq: "inactive" } }) { ${FIELDS} }
           admins: users(limit: 100, filter: { role: { eq: "admin" } }) { role } }`,
          { token: reader.token },
        );
        assert.equal(res.body.errors, undefined, res.text);
        assert.ok(res.body.data.users.some((user: { id: string }) => user.id === String(other.id)));
        assert.ok(res.body.data.users.every((user: { status: string }) => user.status === 'inactive'));
        assert.ok(res.body.data.admins.length > 0);
        assert.ok(res.body.data.admins.every((user: { role: string }) => user.role === 'admin'));
      });

      it('reads them with the users of a level in one statement, however many posts there are (no N+1)', async () => {
        for (let i = 0; i < 6; i += 1) {
          const author = i % 2 === 0 ? reader : other;
          const created = await gql(t, 'mutation ($input: CreatePostInput!) { createPost(input: $input) { id } }', {
            variables: { input: { title: `Post ${i}`, content: 'Text', authorId: String(author.id) } },
            token: t.adminToken,
          });
          assert.equal(created.body.errors, undefined, created.text);
        }
        const count = async (limit: number) => {
          const { result, statements } = await statementsOf(t.server.db, () =>
            gql(t, `{ posts(limit: ${limit}) { id author { ${FIELDS} } } }`, { token: reader.token }),
          );
          assert.equal(result.body.errors, undefined, result.text);
          for (const post of result.body.data.posts) assert.ok(post.author.role && post.author.createdAt);
          return statements.filter((sql) => /from "users"/.test(sql)).length;
        };
        assert.equal(await count(2), 1, 'the authors of 2 posts');
        assert.equal(await count(6), 1, 'the authors of 6 posts');
      });
    },
  );
}
