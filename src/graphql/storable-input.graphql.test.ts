import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../test/support/test-server.ts';
import { errorCodes, gql, gqlGet, GRAPHQL_TEST_ENV } from '../../test/support/graphql-test-client.ts';

const UNSTORABLE = 'must not contain NUL characters or unpaired UTF-16 surrogates';
const CREATE = 'mutation ($input: CreateUserInput!) { createUser(input: $input) { id } }';

for (const dialect of DIALECTS) {
  describe(`hostile input at the shared validation layer, GraphQL (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let owner: { id: number; token: string };
    let postId: number;
    const userCount = async () =>
      String(
        (await t.server.db.selectFrom('users').select(t.server.db.fn.countAll().as('n')).executeTakeFirstOrThrow()).n,
      );

    before(async () => {
      t = await startTestServer(dialect, GRAPHQL_TEST_ENV);
      for (let i = 0; i < 10; i += 1) await t.createUser();
      owner = await t.createUser();
      postId = (
        await t.request('POST', `/api/users/${owner.id}/posts`, {
          token: owner.token,
          body: { title: 'T', content: 'C' },
        })
      ).body.id;
    });
    after(() => t?.close());

    it('reads an ID that is not canonical decimal or beyond the integer range as naming nothing, as REST path ids', async () => {
      const spellings = (id: number) => [
        `0${id}`,
        `0x${id.toString(16)}`,
        ` ${id}`,
        `${id}e0`,
        `+${id}`,
        `${id}.0`,
        '2147483648',
        '99999999999999999999',
      ];
      for (const spelling of spellings(owner.id)) {
        const res = await gql(t, 'query ($id: ID!) { user(id: $id) { id } }', {
          variables: { id: spelling },
          token: t.adminToken,
        });
        assert.deepEqual(res.body, { data: { user: null } }, spelling);
        const update = await gql(t, 'mutation ($id: ID!) { updateUser(id: $id, input: {name: "X"}) { id } }', {
          variables: { id: spelling },
          token: t.adminToken,
        });
        assert.deepEqual(errorCodes(update), ['NOT_FOUND'], spelling);
        assert.equal(update.body.errors[0].message, 'User not found', spelling);
        const removed = await gql(t, 'mutation ($id: ID!) { deleteUser(id: $id) }', {
          variables: { id: spelling },
          token: t.adminToken,
        });
        assert.deepEqual(removed.body, { data: { deleteUser: false } }, spelling);
      }
      for (const spelling of spellings(postId)) {
        const res = await gql(t, 'query ($id: ID!) { post(id: $id) { id } }', {
          variables: { id: spelling },
          token: t.adminToken,
        });
        assert.deepEqual(res.body, { data: { post: null } }, spelling);
      }
      const plain = await gql(t, `{ user(id: "${owner.id}") { name } }`, { token: t.adminToken });
      assert.equal(plain.body.data.user.name.startsWith('User'), true);
      // The caller's rights are checked first, as for an unknown id.
      const anonymous = await gql(t, `mutation { updateUser(id: "0${owner.id}", input: {name: "X"}) { id } }`);
      assert.deepEqual(errorCodes(anonymous), ['UNAUTHENTICATED']);
    });

    it('refuses NUL characters and unpaired surrogates in variables and literals with BAD_USER_INPUT naming them, before anything runs', async () => {
      const before = await userCount();
      const cases = [
        await gql(t, CREATE, { variables: { input: { name: 'a\u0000', email: 'g1@example.com' } } }),
        await gql(t, CREATE, { variables: { input: { name: '\ud800', email: 'g2@example.com' } } }),
        await gql(t, 'mutation { createUser(input: {name: "a\\u0000b", email: "g3@example.com"}) { id } }'),
        await gql(
          t,
          'mutation ($e: String! = "g4@example.com\\u0000") { createUser(input: {name: "N", email: $e}) { id } }',
        ),
        await gqlGet(
          t,
          { query: '{ users { id } }', variables: JSON.stringify({ x: 'a\u0000' }) },
          { authorization: `Bearer ${owner.token}` },
        ),
      ];
      const fields = ['$input.name', '$input.name', 'input.name', '$e', '$x'];
      for (const [index, res] of cases.entries()) {
        assert.deepEqual(errorCodes(res), ['BAD_USER_INPUT'], res.text);
        assert.deepEqual(res.body.errors[0].extensions.details, [{ field: fields[index], message: UNSTORABLE }]);
        assert.equal('data' in res.body, false);
      }
      assert.equal(await userCount(), before);
      const update = await gql(
        t,
        'mutation ($id: ID!, $name: String) { updateUser(id: $id, input: {name: $name}) { id } }',
        { variables: { id: String(owner.id), name: 'x\u0000' }, token: owner.token },
      );
      assert.deepEqual(errorCodes(update), ['BAD_USER_INPUT']);
      const fine = await gql(t, CREATE, { variables: { input: { name: 'Emoji 😀', email: 'g5@example.com' } } });
      assert.equal(typeof fine.body.data.createUser.id, 'string');
    });

    it('refuses limit, offset and ID variables beyond the integer range with BAD_USER_INPUT', async () => {
      for (const value of [2147483648, 1e20, 2 ** 53 + 2]) {
        const res = await gql(t, 'query ($n: Int) { users(limit: $n) { id } }', {
          variables: { n: value },
          token: owner.token,
        });
        assert.deepEqual(errorCodes(res), ['BAD_USER_INPUT'], String(value));
        const offset = await gql(t, 'query ($n: Int) { posts(offset: $n) { id } }', {
          variables: { n: value },
          token: owner.token,
        });
        assert.deepEqual(errorCodes(offset), ['BAD_USER_INPUT'], String(value));
      }
      const far = await gql(t, '{ users(offset: 2147483647) { id } posts(authorId: "2147483648") { id } }', {
        token: owner.token,
      });
      assert.deepEqual(far.body, { data: { users: [], posts: [] } });
      const author = await gql(
        t,
        'mutation { createPost(input: {title: "T", content: "C", authorId: "2147483648"}) { id } }',
        { token: t.adminToken },
      );
      assert.deepEqual(errorCodes(author), ['BAD_USER_INPUT']);
      assert.deepEqual(
        author.body.errors[0].extensions.details.map((d: { field: string }) => d.field),
        ['authorId'],
      );
    });
  });
}
