import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../test/support/dialects.ts';
import { gql, GRAPHQL_TEST_ENV, type GqlOptions } from '../../test/support/graphql-test-client.ts';
import { startTestServer, type TestServer } from '../../test/support/test-server.ts';

/** The parts of an answer a client reads: status and body (the request id differs per request). */
async function answer(t: TestServer, query: string, options: GqlOptions): Promise<{ status: number; body: unknown }> {
  const res = await gql(t, query, options);
  return { status: res.status, body: res.body };
}

/** Runs an operation a few times, so later runs take the cached, compiled operation (operation-cache.ts). */
async function compile(t: TestServer, query: string, options: GqlOptions): Promise<void> {
  for (let run = 0; run < 3; run += 1) {
    const res = await gql(t, query, options);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.errors, undefined, res.text);
  }
}

/** `{ a: { a: ... } }`, `depth` levels. */
function deeplyNested(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < depth; i += 1) value = { a: value };
  return value;
}

const USER_POSTS = 'query UserPosts($id: ID!, $n: Int) { user(id: $id) { id name posts(limit: $n) { id } } }';
/** Cost 100 × (1 + 100 × (1 + 100 × 2)) with `$n: 100`: refused by the cost guard (limit 50,000). */
const NESTED =
  'query Nested($n: Int) { users(limit: $n) { posts(limit: $n) { comments(limit: $n) { author { name } } } } }';
const RENAME = 'mutation Rename($id: ID!, $name: String!) { updateUser(id: $id, input: { name: $name }) { id name } }';

for (const dialect of DIALECTS) {
  describe(
    `a repeated GraphQL operation, run from the operation cache (${dialect.name})`,
    { skip: dialect.skip },
    () => {
      let t: TestServer;
      before(async () => {
        t = await startTestServer(dialect, GRAPHQL_TEST_ENV);
      });
      after(() => t?.close());

      it('answers variables that do not fit, unstorable text and the cost guard exactly as on its first runs', async () => {
        const { id, token } = await t.createUser();
        const refusals: GqlOptions[] = [
          { token, variables: {} }, // $id missing
          { token, variables: { id: {} } }, // not an ID
          { token, variables: { id: String(id), n: 'ten' } }, // not an Int
          { token, variables: { id: `${id}\u0000` } }, // a NUL: the input rules
          { token, variables: { id: String(id), n: 2 ** 40 } }, // past a 32-bit Int
          { token, variables: { id: String(id), n: -(2 ** 53) } },
          { token, variables: { id: deeplyNested(2000) } },
          { token, variables: { id: '9'.repeat(100_000) } }, // names no row: null
          { token, variables: { id: String(id), n: 2 }, accept: 'application/graphql-response+json' },
        ];
        // The first run of each text, then runs from the cache: the same answers.
        const first = [];
        for (const options of refusals) first.push(await answer(t, USER_POSTS, options));
        assert.ok(
          first.every((a) => a.status < 500),
          JSON.stringify(first.map((a) => a.status)),
        );
        const nestedFirst = await answer(t, NESTED, { token: t.adminToken, variables: { n: 100 } });
        assert.equal(nestedFirst.status, 200);
        assert.equal(
          (nestedFirst.body as { errors: { extensions: { guard: string } }[] }).errors[0]!.extensions.guard,
          'cost',
        );

        await compile(t, USER_POSTS, { token, variables: { id: String(id), n: 2 } });
        await compile(t, NESTED, { token: t.adminToken, variables: { n: 1 } });

        const again = [];
        for (const options of refusals) again.push(await answer(t, USER_POSTS, options));
        assert.deepEqual(again, first);
        assert.deepEqual(await answer(t, NESTED, { token: t.adminToken, variables: { n: 100 } }), nestedFirst);
        // A variable limit is read on every run: the same text under the limit is answered.
        const small = await gql(t, NESTED, { token: t.adminToken, variables: { n: 2 } });
        assert.equal(small.body.errors, undefined, small.text);
      });

      it('answers null for an unknown id and the data of a known one, as on its first runs', async () => {
        const { id, token } = await t.createUser({ name: 'Compiled Reader' });
        const unknown = await answer(t, USER_POSTS, { token, variables: { id: '999999' } });
        await compile(t, USER_POSTS, { token, variables: { id: String(id) } });
        assert.deepEqual(await answer(t, USER_POSTS, { token, variables: { id: '999999' } }), unknown);
        const known = await gql(t, USER_POSTS, { token, variables: { id: String(id), n: 5 } });
        assert.deepEqual(known.body, { data: { user: { id: String(id), name: 'Compiled Reader', posts: [] } } });
      });

      it('keeps another user\'s e-mail private ("") and shows the caller\'s own, as on its first runs', async () => {
        const reader = await t.createUser();
        const other = await t.createUser();
        const EMAIL = 'query Email($id: ID!) { user(id: $id) { email } }';
        const first = await answer(t, EMAIL, { token: reader.token, variables: { id: String(other.id) } });
        assert.deepEqual(first.body, { data: { user: { email: '' } } });
        await compile(t, EMAIL, { token: reader.token, variables: { id: String(reader.id) } });
        assert.deepEqual(await answer(t, EMAIL, { token: reader.token, variables: { id: String(other.id) } }), first);
        const own = await gql(t, EMAIL, { token: reader.token, variables: { id: String(reader.id) } });
        assert.equal(own.body.data.user.email, reader.user.email);
      });

      it("checks a mutation against the caller's current rights: a deleted caller's token is refused with 401", async () => {
        const { id, token } = await t.createUser();
        await compile(t, RENAME, { token, variables: { id: String(id), name: 'Renamed' } });
        const deleted = await t.request('DELETE', `/api/users/${id}`, { token: t.adminToken });
        assert.equal(deleted.status, 204, deleted.text);
        const refused = await gql(t, RENAME, { token, variables: { id: String(id), name: 'Too late' } });
        assert.equal(refused.status, 401, refused.text);
        assert.equal(refused.body.errors[0].extensions.code, 'UNAUTHENTICATED');
      });
    },
  );
}
