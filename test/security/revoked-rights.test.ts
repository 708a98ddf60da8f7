import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { observeQueries } from '../../src/core/db/database.ts';
import { DIALECTS } from '../support/dialects.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { GRAPHQL_RULES, REST_RULES, v2Only, type GraphQLRule, type RestRule } from './permission-matrix.table.ts';
import { createWorld, type World } from './permission-world.test-support.ts';
import { SECURITY_TEST_ENV } from './security-test-env.test-support.ts';

/**
 * DECISIONS §5: stateless verification must not outlive a change of rights. A user is promoted,
 * signs in (their token says admin), then is demoted, suspended or deleted; with the token they
 * still hold, every write and every read an admin may do that another user may not (derived from
 * the permission matrix, so a new route is walked too) answers as for a plain other user (demoted)
 * or 401 (suspended, deleted), under /api, /api/v1 and /api/v2 and in GraphQL.
 */

const PREFIXES = ['/api', '/api/v1', '/api/v2'];
const PASSWORD = 'revoked-rights-42';
const methodOf = (route: string) => route.split(' ')[0]!;

/** The rows whose answer depends on the caller's current rights. */
const WALKED_REST = Object.entries(REST_RULES).filter(
  ([route, rule]) => methodOf(route) !== 'GET' || rule.expect.admin !== rule.expect.user,
);
const WALKED_GRAPHQL = Object.entries(GRAPHQL_RULES).filter(
  ([operation, rule]) => operation.startsWith('mutation ') || rule.expect.admin !== rule.expect.user,
);

type Change = 'demoted' | 'suspended' | 'deleted';

interface Holder {
  id: number;
  token: string;
}

/** Signs up, signs in through the token endpoint (a password, not a minted token) and returns the token. */
async function signedIn(t: TestServer, promote: boolean): Promise<Holder> {
  const { id, user } = await t.createUser({ password: PASSWORD });
  if (promote) {
    const res = await t.request('POST', `/api/users/${id}/actions/promote-to-admin`, { token: t.adminToken });
    assert.equal(res.status, 200, res.text);
  }
  const res = await t.request('POST', '/api/auth/token', { body: { email: user.email, password: PASSWORD } });
  assert.equal(res.status, 200, res.text);
  return { id, token: res.body.access_token as string };
}

async function revoke(t: TestServer, id: number, change: Change): Promise<void> {
  const as = { token: t.adminToken };
  const steps =
    change === 'deleted'
      ? [t.request('DELETE', `/api/users/${id}`, as)]
      : [t.request('PATCH', `/api/users/${id}`, { ...as, body: { role: 'user' } })];
  for (const res of await Promise.all(steps)) assert.ok(res.status < 300, res.text);
  if (change === 'suspended') {
    const res = await t.request('PATCH', `/api/users/${id}`, { ...as, body: { status: 'suspended' } });
    assert.equal(res.status, 200, res.text);
  }
}

async function exAdmin(t: TestServer, change: Change): Promise<Holder> {
  const holder = await signedIn(t, true);
  await revoke(t, holder.id, change);
  return holder;
}

/** Sends each walked REST row with `token`; returns the rows that did not answer `expected(rule)`. */
async function walkRest(
  t: TestServer,
  token: string,
  expected: (rule: RestRule, route: string) => number,
  worldFor: (rule: RestRule) => World,
): Promise<string[]> {
  const wrong: string[] = [];
  for (const [route, rule] of WALKED_REST) {
    const [method, path] = route.split(' ') as [string, string];
    const prefixes = path.startsWith('/api/') ? PREFIXES : [''];
    await Promise.all(
      prefixes.map(async (prefix) => {
        const world = worldFor(rule);
        const request = await rule.request(world, 'user');
        if (v2Only(request) && prefix === '/api/v1') return;
        const url = prefix ? `${prefix}${request.path.slice('/api'.length)}` : request.path;
        const res = await t.request(method, url, {
          token,
          body: request.body,
          raw: request.raw,
          headers: request.headers,
        });
        const want = expected(rule, route);
        if (res.status !== want)
          wrong.push(`${method} ${url}: expected ${want}, got ${res.status} ${res.text.slice(0, 120)}`);
      }),
    );
  }
  return wrong;
}

/** The same for the walked GraphQL operations: `ok`, an error code, or `401` for a refused request. */
async function walkGraphQL(
  t: TestServer,
  token: string,
  expected: (rule: GraphQLRule, operation: string) => string,
  worldFor: (rule: GraphQLRule) => World,
): Promise<string[]> {
  const wrong: string[] = [];
  for (const [operation, rule] of WALKED_GRAPHQL) {
    const res = await t.request('POST', '/graphql', { token, body: await rule.operation(worldFor(rule)) });
    const outcome = res.status === 401 ? '401' : res.body?.errors ? String(res.body.errors[0].extensions?.code) : 'ok';
    const want = expected(rule, operation);
    if (outcome !== want) wrong.push(`${operation}: expected ${want}, got ${res.status} ${outcome}`);
  }
  return wrong;
}

for (const dialect of DIALECTS) {
  describe(`rights revoked while a token is still valid (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let shared: World;
    before(async () => {
      t = await startTestServer(dialect, {
        ...SECURITY_TEST_ENV,
        RATE_LIMIT_MAX: '1000000',
        RATE_LIMIT_AUTH_MAX: '1000',
      });
      shared = createWorld(t);
    });
    after(() => t?.close());

    const fresh = (rule: { writes?: boolean }) => (rule.writes ? createWorld(t) : shared);

    it('walks every write and admin route of the permission matrix (the walk covers them all)', () => {
      const routes = WALKED_REST.map(([route]) => route);
      for (const route of [
        'POST /api/orders',
        'GET /api/orders/:orderId',
        'POST /api/reports/generate',
        'GET /api/reports/:reportId',
        'PATCH /api/users/:userId',
      ]) {
        assert.ok(routes.includes(route), route);
      }
      assert.ok(WALKED_GRAPHQL.some(([operation]) => operation === 'mutation updateUser'));
    });

    it('a demoted admin’s token acts as a plain user on every write and admin route', async () => {
      const holder = await exAdmin(t, 'demoted');
      assert.deepEqual(await walkRest(t, holder.token, (rule) => rule.expect.user, fresh), []);
      assert.deepEqual(await walkGraphQL(t, holder.token, (rule) => rule.expect.user, fresh), []);
    });

    it('a demoted admin cannot make themselves admin again, nor list every order', async () => {
      const other = await t.createUser();
      await shared.placeOrder();
      const holder = await exAdmin(t, 'demoted');
      const self = await t.request('PATCH', `/api/users/${holder.id}`, {
        token: holder.token,
        body: { role: 'admin', status: 'active' },
      });
      assert.equal(self.status, 403, self.text);
      const orders = await t.request('GET', '/api/orders?limit=100', { token: holder.token });
      assert.equal(orders.status, 200);
      assert.deepEqual(orders.body.data, [], 'only their own orders (none)');
      const report = await t.request('POST', '/api/reports/generate', { token: holder.token, body: { type: 'users' } });
      assert.equal(report.status, 403);
      const role = await t.request('GET', `/api/users/${holder.id}`, { token: other.token });
      assert.equal(role.body.role, 'user');
    });

    for (const change of ['suspended', 'deleted'] as const) {
      it(`a ${change} admin’s token is refused (401) on every write and admin route`, async () => {
        const holder = await exAdmin(t, change);
        assert.deepEqual(
          await walkRest(
            t,
            holder.token,
            () => 401,
            () => shared,
          ),
          [],
        );
        assert.deepEqual(
          await walkGraphQL(
            t,
            holder.token,
            () => '401',
            () => shared,
          ),
          [],
        );
      });

      it(`a ${change} user’s token is refused (401) on every write, in REST and in GraphQL mutations`, async () => {
        const holder = await signedIn(t, false);
        await revoke(t, holder.id, change);
        // Its reads stay stateless (as another user's; the GraphQL row is a query), its writes are refused.
        const read = (route: string) => methodOf(route) === 'GET' || route === 'POST /graphql';
        const rest = (rule: RestRule, route: string) => (read(route) ? rule.expect.user : 401);
        assert.deepEqual(await walkRest(t, holder.token, rest, () => shared), []);
        const graphql = (rule: GraphQLRule, operation: string) =>
          operation.startsWith('mutation ') ? '401' : rule.expect.user;
        assert.deepEqual(await walkGraphQL(t, holder.token, graphql, () => shared), []);
      });
    }

    it('a suspended admin cannot reactivate and promote themselves with the old token', async () => {
      const holder = await exAdmin(t, 'suspended');
      const self = await t.request('PATCH', `/api/users/${holder.id}`, {
        token: holder.token,
        body: { role: 'admin', status: 'active' },
      });
      assert.equal(self.status, 401, self.text);
      const now = await t.request('GET', `/api/users/${holder.id}`, { token: t.adminToken });
      assert.deepEqual([now.body.role, now.body.status], ['user', 'suspended']);
    });

    it('a user who deleted themselves gets 401, not 500, when placing an order with their token', async () => {
      const holder = await signedIn(t, false);
      const deleted = await t.request('DELETE', `/api/users/${holder.id}`, { token: holder.token });
      assert.equal(deleted.status, 204);
      const res = await t.request('POST', '/api/orders', {
        token: holder.token,
        body: { items: [{ productId: await shared.productId(), quantity: 1 }] },
      });
      assert.equal(res.status, 401, res.text);
      assert.equal(res.body.error.code, 'UNAUTHORIZED');
      assert.match(res.headers.get('www-authenticate') ?? '', /invalid_token/);
    });

    it('an inactive user keeps their rights (the token endpoint signs them in too)', async () => {
      const holder = await signedIn(t, false);
      const res = await t.request('PATCH', `/api/users/${holder.id}`, {
        token: t.adminToken,
        body: { status: 'inactive' },
      });
      assert.equal(res.status, 200);
      const write = await t.request('PATCH', `/api/users/${holder.id}`, {
        token: holder.token,
        body: { name: 'Still here' },
      });
      assert.equal(write.status, 200, write.text);
    });

    it('reads with a user token stay stateless; a write or an admin token costs one rights lookup', async () => {
      const holder = await signedIn(t, false);
      const lookups = () =>
        statements.filter((text) => /^select "role", "status", "erased_at" from "users"/.test(text)).length;
      const statements: string[] = [];
      const stop = observeQueries(t.server.db, (text) => statements.push(text));
      try {
        assert.equal((await t.request('GET', '/api/posts', { token: holder.token })).status, 200);
        assert.equal(
          (await t.request('POST', '/graphql', { token: holder.token, body: { query: '{ users { id } }' } })).status,
          200,
        );
        assert.equal(lookups(), 0, 'plain reads');
        assert.equal(
          (await t.request('PATCH', `/api/users/${holder.id}`, { token: holder.token, body: {} })).status,
          200,
        );
        assert.equal(lookups(), 1, 'a write');
        assert.equal((await t.request('GET', '/api/orders', { token: t.adminToken })).status, 200);
        assert.equal(lookups(), 2, 'an admin token');
        await t.request('POST', '/graphql', {
          token: holder.token,
          body: { query: `mutation { updateUser(id: "${holder.id}", input: {}) { id } }` },
        });
        assert.equal(lookups(), 3, 'a GraphQL mutation');
      } finally {
        stop();
      }
    });
  });
}
