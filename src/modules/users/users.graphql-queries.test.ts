import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { errorCodes, gql, GRAPHQL_TEST_ENV } from '../../../test/support/graphql-test-client.ts';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

const USERS = `query ($filter: UserFilter, $orderBy: [UserOrder!], $limit: Int) {
  users(filter: $filter, orderBy: $orderBy, limit: $limit) { id name age }
}`;

interface Listed {
  id: string;
  name: string;
  age: number | null;
}

/** DECISIONS §12 through GraphQL: `users(filter, orderBy)` with the REST list's rules. */
for (const dialect of DIALECTS) {
  describe(`users GraphQL filter and orderBy (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let token: string;
    let rest: { id: number; name: string; age: number | null }[];

    const users = async (variables: Record<string, unknown>, as = token) => {
      const res = await gql(t, USERS, { variables: { limit: 100, ...variables }, token: as });
      assert.equal(res.status, 200, res.text);
      return res;
    };
    const idsOf = (res: { body: { data: { users: Listed[] } } }) => res.body.data.users.map((u) => Number(u.id));

    before(async () => {
      t = await startTestServer(dialect, GRAPHQL_TEST_ENV);
      token = (await t.createUser({ name: 'Asker', age: 50 })).token;
      for (const [name, age] of [
        ['Ann', 20],
        ['anna', 35],
        ['Bob', null],
        ['Cyd', 35],
      ] as const) {
        await t.createUser({ name, age });
      }
      rest = (await t.request('GET', '/api/users?limit=100', { token: t.adminToken })).body.data;
    });
    after(() => t?.close());

    it('filters with each field’s operators as input fields, as the REST list does', async () => {
      const res = await users({ filter: { age: { gte: 30 }, name: { contains: 'ANN' } } });
      assert.deepEqual(
        idsOf(res),
        rest.filter((u) => u.age !== null && u.age >= 30 && u.name.toLowerCase().includes('ann')).map((u) => u.id),
      );
      const nulls = await users({ filter: { age: { null: true } } });
      assert.deepEqual(
        idsOf(nulls),
        rest.filter((u) => u.age === null).map((u) => u.id),
      );
      const listed = await users({ filter: { age: { in: [20, 35] }, role: { eq: 'user' } } });
      assert.deepEqual(
        idsOf(listed),
        rest.filter((u) => u.age === 20 || u.age === 35).map((u) => u.id),
      );
    });

    it('orders by a list of fields and directions, ties by id, nulls last', async () => {
      const res = await users({ orderBy: ['AGE_DESC', 'NAME_ASC'] });
      const expected = [...rest].sort(
        (a, b) =>
          (a.age === null ? 1 : 0) - (b.age === null ? 1 : 0) ||
          (b.age ?? 0) - (a.age ?? 0) ||
          (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) ||
          b.id - a.id,
      );
      assert.deepEqual(
        idsOf(res),
        expected.map((u) => u.id),
      );
      // Without filter and orderBy, users stay in id order, as the seed's query.
      assert.deepEqual(
        idsOf(await users({})),
        rest.map((u) => u.id),
      );
    });

    it('refuses ill-typed values and email to non-admins, naming the argument', async () => {
      const bad = await users({ filter: { createdAt: { gt: 'yesterday' } } });
      assert.deepEqual(errorCodes(bad), ['BAD_USER_INPUT']);
      assert.deepEqual(
        bad.body.errors[0].extensions.details.map((d: { field: string }) => d.field),
        ['filter.createdAt.gt'],
      );
      const email = await users({ filter: { email: { contains: 'example' } } });
      assert.deepEqual(errorCodes(email), ['FORBIDDEN']);
      const sorted = await users({ orderBy: ['EMAIL_ASC'] });
      assert.deepEqual(errorCodes(sorted), ['FORBIDDEN']);
      const admin = await users({ filter: { email: { contains: '@' } } }, t.adminToken);
      assert.equal(admin.body.data.users.length, rest.length);
      // An operator the field does not take is refused by the schema itself.
      const unknown = await users({ filter: { age: { contains: '3' } } });
      assert.deepEqual(errorCodes(unknown), ['BAD_USER_INPUT']);
    });
  });
}
