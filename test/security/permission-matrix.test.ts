import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../support/dialects.ts';
import { servedRoutes } from '../support/served-routes.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { GRAPHQL_RULES, REST_RULES, v2Only, type GraphQLOutcome } from './permission-matrix.table.ts';
import { createWorld, ROLES, type World } from './permission-world.test-support.ts';
import { SECURITY_TEST_ENV } from './security-test-env.test-support.ts';

/** `/api/v2/...` and the bare `/api/v2` (the front door's copies of `/api`). */
const VERSIONED = /^\/api\/v\d+(?=\/|$)/;

for (const dialect of DIALECTS) {
  describe(`permission matrix (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let shared: World;
    let served: string[];
    before(async () => {
      t = await startTestServer(dialect, {
        ...SECURITY_TEST_ENV,
        RATE_LIMIT_MAX: '1000000',
        RATE_LIMIT_AUTH_MAX: '1000',
      });
      shared = createWorld(t);
      served = servedRoutes(t.server.app.http);
    });
    after(() => t?.close());

    it('has exactly one row for every route the app serves (a new route needs a declared rule)', () => {
      const unversioned = new Set(served.filter((route) => !VERSIONED.test(route.split(' ')[1]!)));
      const missing = [...unversioned].filter((route) => !(route in REST_RULES));
      const stale = Object.keys(REST_RULES).filter((route) => !unversioned.has(route));
      assert.deepEqual(missing, [], `routes without a row in permission-matrix.table.ts: ${missing.join(', ')}`);
      assert.deepEqual(stale, [], `rows naming no route: ${stale.join(', ')}`);
    });

    it('serves /api/v2 from the same route table as /api, and /api/v1 from it less the v2-only routes', async () => {
      const base = served.filter((route) => route.includes(' /api/') && !VERSIONED.test(route.split(' ')[1]!)).sort();
      const tableOf = (prefix: string) =>
        served
          .filter((route) => route.split(' ')[1]!.startsWith(`${prefix}/`))
          .map((route) => route.replace(` ${prefix}/`, ' /api/'))
          .sort();
      assert.deepEqual(tableOf('/api/v2'), base, '/api/v2');
      // What v1 lacks is v2's alone: in v2's document, not in v1's.
      const [v1, v2] = await Promise.all(
        [1, 2].map(async (version) => (await t.request('GET', `/api/v${version}/openapi.json`)).body.paths),
      );
      const documented = (paths: Record<string, Record<string, unknown>>, route: string) => {
        const [method, url] = route.split(' ') as [string, string];
        return Boolean(paths[url.slice(4).replace(/:(\w+)/g, '{$1}')]?.[method.toLowerCase()]);
      };
      const v1Table = tableOf('/api/v1');
      const v2Only = base.filter((route) => !v1Table.includes(route));
      assert.deepEqual(
        v1Table,
        base.filter((route) => !v2Only.includes(route)),
      );
      assert.ok(v2Only.length > 0);
      for (const route of v2Only) assert.ok(documented(v2, route) && !documented(v1, route), route);
    });

    it('answers every REST route as its row says, for anonymous, user, owner and admin', async () => {
      const wrong: string[] = [];
      for (const [route, rule] of Object.entries(REST_RULES)) {
        const method = route.split(' ')[0]!;
        await Promise.all(
          ROLES.map(async (role) => {
            const world = rule.writes ? createWorld(t) : shared;
            const request = await rule.request(world, role);
            const res = await t.request(method, request.path, {
              token: await world.tokenOf(role),
              body: request.body,
              raw: request.raw,
              headers: request.headers,
            });
            if (res.status !== rule.expect[role])
              wrong.push(
                `${route} as ${role}: expected ${rule.expect[role]}, got ${res.status} ${res.text.slice(0, 160)}`,
              );
            if (res.status >= 400 && !res.body?.error?.code && !res.body?.errors)
              wrong.push(`${route} as ${role}: ${res.status} without the error envelope`);
          }),
        );
      }
      assert.deepEqual(wrong, []);
    });

    it('answers the reads the same way under /api/v1 and /api/v2', async () => {
      const wrong: string[] = [];
      for (const [route, rule] of Object.entries(REST_RULES)) {
        if (rule.writes || !route.startsWith('GET /api/')) continue;
        for (const [prefix, role] of [
          ['/api/v1', 'user'],
          ['/api/v2', 'anonymous'],
        ] as const) {
          const request = await rule.request(shared, role);
          if (v2Only(request) && prefix === '/api/v1') continue;
          const res = await t.request('GET', request.path.replace(/^\/api\//, `${prefix}/`), {
            token: await shared.tokenOf(role),
          });
          if (res.status !== rule.expect[role])
            wrong.push(`${prefix} ${route} as ${role}: expected ${rule.expect[role]}, got ${res.status}`);
        }
      }
      assert.deepEqual(wrong, []);
    });

    it('has a row for every GraphQL operation and answers each as its row says', async () => {
      const schema = await t.request('POST', '/graphql', {
        body: { query: '{ __schema { queryType { fields { name } } mutationType { fields { name } } } }' },
      });
      const operations = [
        ...schema.body.data.__schema.queryType.fields.map((f: { name: string }) => `query ${f.name}`),
        ...(schema.body.data.__schema.mutationType?.fields ?? []).map((f: { name: string }) => `mutation ${f.name}`),
      ];
      const missing = operations.filter((operation: string) => !(operation in GRAPHQL_RULES));
      assert.deepEqual(missing, [], `GraphQL operations without a row: ${missing.join(', ')}`);
      assert.deepEqual(
        Object.keys(GRAPHQL_RULES).filter((operation) => !operations.includes(operation)),
        [],
        'rows naming no operation',
      );

      const wrong: string[] = [];
      for (const [operation, rule] of Object.entries(GRAPHQL_RULES)) {
        await Promise.all(
          ROLES.map(async (role) => {
            const world = rule.writes ? createWorld(t) : shared;
            const res = await t.request('POST', '/graphql', {
              token: await world.tokenOf(role),
              body: await rule.operation(world),
            });
            const outcome: GraphQLOutcome = res.body?.errors ? res.body.errors[0].extensions?.code : 'ok';
            if (res.status !== 200 || outcome !== rule.expect[role]) {
              wrong.push(`${operation} as ${role}: expected ${rule.expect[role]}, got ${res.status} ${outcome}`);
            }
          }),
        );
      }
      assert.deepEqual(wrong, []);
    });
  });
}
