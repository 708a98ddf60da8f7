import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { errorCodes, gql, GRAPHQL_TEST_ENV } from '../../../test/support/graphql-test-client.ts';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

const CREATE = 'mutation Create($input: CreateUserInput!) { createUser(input: $input) { id name email age } }';
const UPDATE =
  'mutation Update($id: ID!, $input: UpdateUserInput!) { updateUser(id: $id, input: $input) { id name email age } }';
const DELETE = 'mutation Delete($id: ID!) { deleteUser(id: $id) }';

for (const dialect of DIALECTS) {
  describe(`users GraphQL (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(dialect, GRAPHQL_TEST_ENV);
    });
    after(() => t?.close());

    describe('queries', () => {
      it('refuses an anonymous users query with UNAUTHENTICATED at its path, data null', async () => {
        const res = await gql(t, '{ users { id } }');
        assert.equal(res.status, 200);
        assert.equal(res.body.data, null);
        assert.deepEqual(errorCodes(res), ['UNAUTHENTICATED']);
        assert.deepEqual(res.body.errors[0].path, ['users']);
        assert.deepEqual(res.body.errors[0].locations, [{ line: 1, column: 3 }]);
      });

      it('refuses an anonymous user(id) query with UNAUTHENTICATED', async () => {
        const res = await gql(t, '{ user(id: "1") { id } }');
        assert.deepEqual(errorCodes(res), ['UNAUTHENTICATED']);
        assert.deepEqual(res.body.data, { user: null });
      });

      it('reads one user by id with exactly the selected fields; ids are strings', async () => {
        const { id, token } = await t.createUser({ name: 'Grace', age: 45 });
        const res = await gql(t, 'query ($id: ID!) { user(id: $id) { id name age } }', {
          variables: { id: String(id) },
          token,
        });
        assert.equal(res.status, 200);
        assert.deepEqual(res.body, { data: { user: { id: String(id), name: 'Grace', age: 45 } } });
      });

      it('answers null (no error) for an unknown or malformed user id', async () => {
        const res = await gql(
          t,
          '{ a: user(id: "999999") { id } b: user(id: "abc") { id } c: user(id: "-1") { id } }',
          { token: t.adminToken },
        );
        assert.deepEqual(res.body, { data: { a: null, b: null, c: null } });
      });

      it('lists users by id with limit and offset; limit defaults to 10 and stays within 1..100', async () => {
        for (let i = 0; i < 12; i += 1) await t.createUser();
        const all = await gql(t, '{ users { id } }', { token: t.adminToken });
        assert.equal(all.body.data.users.length, 10);
        const ids = all.body.data.users.map((u: { id: string }) => Number(u.id));
        assert.deepEqual(
          ids,
          [...ids].sort((a, b) => a - b),
        );
        const page = await gql(t, '{ users(limit: 2, offset: 1) { id } }', { token: t.adminToken });
        assert.deepEqual(page.body.data.users, all.body.data.users.slice(1, 3));
        const clamped = await gql(t, '{ low: users(limit: 0) { id } high: users(limit: 500) { id } }', {
          token: t.adminToken,
        });
        assert.equal(clamped.body.data.low.length, 1);
        assert.ok(clamped.body.data.high.length > 10 && clamped.body.data.high.length <= 100);
      });

      it('supports named operations with variables, aliases, fragments and inline fragments in one document', async () => {
        const { id, token } = await t.createUser({ name: 'Alias Me', email: 'alias@example.com' });
        const query = `
          query Two($first: ID!, $second: ID!) {
            first: user(id: $first) { ...Basics }
            second: user(id: $second) { ... on User { name } }
            everyone: users(limit: 1) { ...Basics }
          }
          fragment Basics on User { id name email }
        `;
        const res = await gql(t, query, { variables: { first: String(id), second: '1' }, operationName: 'Two', token });
        assert.equal(res.status, 200, res.text);
        assert.deepEqual(res.body.data.first, { id: String(id), name: 'Alias Me', email: 'alias@example.com' });
        assert.deepEqual(res.body.data.second, { name: 'Administrator' });
        assert.deepEqual(Object.keys(res.body.data.everyone[0]), ['id', 'name', 'email']);
      });

      it('runs the operation named by operationName when the document holds several', async () => {
        const res = await gql(t, 'query A { a: __typename } query B { b: __typename }', { operationName: 'B' });
        assert.deepEqual(res.body, { data: { b: 'Query' } });
      });
    });

    describe('createUser', () => {
      it('signs up anonymously and returns the user', async () => {
        const res = await gql(t, CREATE, {
          variables: { input: { name: ' Ada ', email: 'ADA.gql@example.com', age: 36 } },
        });
        assert.equal(res.status, 200);
        assert.equal(res.body.errors, undefined);
        assert.deepEqual(
          { ...res.body.data.createUser, id: undefined },
          { id: undefined, name: 'Ada', email: 'ada.gql@example.com', age: 36 },
        );
      });

      it('answers a bad email, a blank name and a negative age with BAD_USER_INPUT naming the field', async () => {
        const cases: [Record<string, unknown>, string][] = [
          [{ name: 'A', email: 'not-an-email' }, 'email'],
          [{ name: '   ', email: 'blank-gql@example.com' }, 'name'],
          [{ name: 'A', email: 'age-gql@example.com', age: -1 }, 'age'],
        ];
        for (const [input, field] of cases) {
          const res = await gql(t, CREATE, { variables: { input } });
          assert.equal(res.status, 200);
          assert.equal(res.body.data, null);
          assert.deepEqual(errorCodes(res), ['BAD_USER_INPUT'], res.text);
          assert.deepEqual(res.body.errors[0].path, ['createUser']);
          assert.ok(
            res.body.errors[0].extensions.details.some((d: { field: string }) => d.field === field),
            `${field}: ${res.text}`,
          );
        }
      });

      it('leaves missing required input fields to the schema: GRAPHQL_VALIDATION_FAILED or BAD_USER_INPUT for variables', async () => {
        const literal = await gql(t, 'mutation { createUser(input: {name: "No Email"}) { id } }');
        assert.deepEqual(errorCodes(literal), ['GRAPHQL_VALIDATION_FAILED']);
        const variable = await gql(t, CREATE, { variables: { input: { name: 'No Email' } } });
        assert.deepEqual(errorCodes(variable), ['BAD_USER_INPUT']);
        assert.equal(variable.body.data, undefined);
      });

      it('has no way to set a role: a role in the input is a schema error', async () => {
        const res = await gql(
          t,
          'mutation { createUser(input: {name: "R", email: "r@example.com", role: "admin"}) { id } }',
        );
        assert.deepEqual(errorCodes(res), ['GRAPHQL_VALIDATION_FAILED']);
      });

      it('answers a duplicate email with CONFLICT', async () => {
        await gql(t, CREATE, { variables: { input: { name: 'One', email: 'dup-gql@example.com' } } });
        const res = await gql(t, CREATE, { variables: { input: { name: 'Two', email: 'DUP-gql@example.com' } } });
        assert.deepEqual(errorCodes(res), ['CONFLICT']);
      });
    });

    describe('updateUser', () => {
      it('lets users change themselves, only the fields sent', async () => {
        const { id, token } = await t.createUser({ name: 'Before', age: 20 });
        const res = await gql(t, UPDATE, { variables: { id: String(id), input: { name: 'After' } }, token });
        assert.deepEqual(res.body.data.updateUser, {
          id: String(id),
          name: 'After',
          email: res.body.data.updateUser.email,
          age: 20,
        });
        const cleared = await gql(t, UPDATE, { variables: { id: String(id), input: { age: null } }, token });
        assert.equal(cleared.body.data.updateUser.age, null);
      });

      it('refuses updating another user with FORBIDDEN and changes nothing', async () => {
        const victim = await t.createUser({ name: 'Victim' });
        const other = await t.createUser();
        const res = await gql(t, UPDATE, {
          variables: { id: String(victim.id), input: { name: 'Hacked' } },
          token: other.token,
        });
        assert.deepEqual(errorCodes(res), ['FORBIDDEN']);
        assert.equal(res.body.data, null);
        const read = await t.request('GET', `/api/users/${victim.id}`, { token: t.adminToken });
        assert.equal(read.body.name, 'Victim');
      });

      it('cannot raise its own role: UpdateUserInput has no role field', async () => {
        const { id, token } = await t.createUser();
        const res = await gql(t, `mutation { updateUser(id: "${id}", input: {role: "admin"}) { id } }`, { token });
        assert.deepEqual(errorCodes(res), ['GRAPHQL_VALIDATION_FAILED']);
        const read = await t.request('GET', `/api/users/${id}`, { token });
        assert.equal(read.body.role, 'user');
      });

      it('answers an anonymous update with UNAUTHENTICATED and an unknown id (admin) with NOT_FOUND', async () => {
        const anonymous = await gql(t, UPDATE, { variables: { id: '1', input: { name: 'X' } } });
        assert.deepEqual(errorCodes(anonymous), ['UNAUTHENTICATED']);
        const unknown = await gql(t, UPDATE, {
          variables: { id: '999999', input: { name: 'X' } },
          token: t.adminToken,
        });
        assert.deepEqual(errorCodes(unknown), ['NOT_FOUND']);
      });

      it('validates like REST: a bad email is BAD_USER_INPUT with details', async () => {
        const { id, token } = await t.createUser();
        const res = await gql(t, UPDATE, { variables: { id: String(id), input: { email: 'nope' } }, token });
        assert.deepEqual(errorCodes(res), ['BAD_USER_INPUT']);
        assert.deepEqual(
          res.body.errors[0].extensions.details.map((d: { field: string }) => d.field),
          ['email'],
        );
      });
    });

    describe('deleteUser', () => {
      it('returns true when the user existed and false when no such user exists', async () => {
        const { id } = await t.createUser();
        const first = await gql(t, DELETE, { variables: { id: String(id) }, token: t.adminToken });
        assert.deepEqual(first.body, { data: { deleteUser: true } });
        const second = await gql(t, DELETE, { variables: { id: String(id) }, token: t.adminToken });
        assert.deepEqual(second.body, { data: { deleteUser: false } });
        const gone = await t.request('GET', `/api/users/${id}`, { token: t.adminToken });
        assert.equal(gone.status, 404);
      });

      it('lets users delete themselves and refuses deleting others with FORBIDDEN', async () => {
        const self = await t.createUser();
        const other = await t.createUser();
        const refused = await gql(t, DELETE, { variables: { id: String(other.id) }, token: self.token });
        assert.deepEqual(errorCodes(refused), ['FORBIDDEN']);
        const own = await gql(t, DELETE, { variables: { id: String(self.id) }, token: self.token });
        assert.deepEqual(own.body, { data: { deleteUser: true } });
      });
    });

    describe('one store for REST and GraphQL', () => {
      it('reads through GraphQL at once a user created through REST', async () => {
        const created = await t.request('POST', '/api/users', {
          body: { name: 'Rest Made', email: 'rest-made@example.com' },
        });
        const res = await gql(t, `{ user(id: "${created.body.id}") { name email } }`, { token: t.adminToken });
        assert.deepEqual(res.body.data.user, { name: 'Rest Made', email: 'rest-made@example.com' });
      });

      it('reads through REST at once a user created and updated through GraphQL', async () => {
        const created = await gql(t, CREATE, {
          variables: { input: { name: 'Graph Made', email: 'graph-made@example.com' } },
        });
        const id = created.body.data.createUser.id;
        await gql(t, UPDATE, { variables: { id, input: { age: 7 } }, token: t.adminToken });
        const read = await t.request('GET', `/api/users/${id}`, { token: t.adminToken });
        assert.equal(read.status, 200);
        assert.equal(read.body.name, 'Graph Made');
        assert.equal(read.body.age, 7);
      });
    });
  });
}
