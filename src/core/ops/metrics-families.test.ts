import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { servedRoutes } from '../../../test/support/served-routes.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';
import { HTTP_DURATION_BUCKETS } from './request-metrics.ts';

/** One sample line of the Prometheus text: `name{a="x",b="y"} value`. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

function parseSamples(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    assert.ok(match, `not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[key!] = value!;
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The samples of `name` whose labels include `labels`. */
function find(samples: Sample[], name: string, labels: Record<string, string> = {}): Sample[] {
  return samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
}

function value(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const found = find(samples, name, labels);
  assert.equal(found.length, 1, `one ${name}${JSON.stringify(labels)}, found ${found.length}`);
  return found[0]!.value;
}

/** Reads /metrics, retried while the server sheds (the scrape is not exempt from shedding). */
async function scrape(t: TestServer): Promise<Sample[]> {
  for (let attempt = 0; ; attempt += 1) {
    const res = await t.request('GET', '/metrics');
    if (res.status === 503 && attempt < 20) {
      await sleep(100);
      continue;
    }
    assert.equal(res.status, 200, res.text);
    return parseSamples(res.text);
  }
}

// 1.5 s was not enough on a host four times slower than usual: the test's own set-up lagged the loop
// past it and its first request was shed (CI run of 2026-11-23 16:30 UTC). At load 11 on two cores
// (2026-11-24) even 3 s of lateness came from the machine not running the process; the shedder now
// counts only the loop thread's own CPU time in its window (overload.ts), so that no longer sheds.
const SHED_AFTER_MS = 3000;

/** Blocks the event loop (the server shares it with the test) until a request is shed; returns how many were. */
async function provokeShedding(t: TestServer): Promise<number> {
  for (let attempt = 0; attempt < 10; attempt += 1) {
    // The shedder counts the loop's own work, not time the machine did not run this process: block for
    // that much of this thread's CPU time, however busy the machine is.
    const cpuMs = () => {
      const { user, system } = process.threadCpuUsage();
      return (user + system) / 1000;
    };
    const end = cpuMs() + SHED_AFTER_MS + 600;
    while (cpuMs() < end);
    // Let the overdue sampling timer run before the request is read.
    await sleep(1);
    if ((await t.request('GET', '/api/products')).status === 503) return 1;
  }
  return 0;
}

const graphql = (t: TestServer, query: string, token?: string, variables?: Record<string, unknown>) =>
  t.request('POST', '/graphql', { token, body: { query, variables } });

for (const dialect of DIALECTS) {
  describe(`the operator's metrics (${dialect.name})`, { skip: dialect.skip }, () => {
    it('after a short mixed load shows every family with its labels: HTTP by route and version, database, GraphQL, rate limits, shedding, the report queue, replays', async () => {
      const t = await startTestServer(dialect, {
        REPORT_WORKER: 'false',
        RATE_LIMIT_AUTH_MAX: '2',
        // High enough that a busy CI machine does not shed the load (400 ms did once, 1.5 s later); the
        // test blocks the loop for longer.
        OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: String(SHED_AFTER_MS),
      });
      try {
        // REST under every prefix.
        const user = await t.createUser();
        for (const prefix of ['/api', '/api/v1', '/api/v2']) {
          assert.equal((await t.request('GET', `${prefix}/users/${user.id}`, { token: user.token })).status, 200);
        }
        assert.equal(
          (await t.request('GET', '/api/users/1', { token: user.token, headers: { 'api-version': '2' } })).status,
          200,
        );

        // An idempotent write, replayed.
        const product = await t.request('POST', '/api/v2/products', {
          token: t.adminToken,
          body: { name: 'Lamp', category: 'home', price: 10, stock: 5 },
        });
        assert.equal(product.status, 201);
        const order = (headers: Record<string, string>) =>
          t.request('POST', '/api/v1/orders', {
            token: user.token,
            headers,
            body: { items: [{ productId: product.body.id, quantity: 1 }] },
          });
        assert.equal((await order({ 'idempotency-key': 'metrics-test-1' })).status, 201);
        const replay = await order({ 'idempotency-key': 'metrics-test-1' });
        assert.equal(replay.headers.get('idempotent-replayed'), 'true');

        // GraphQL: a named query, a query answered with an error, a document that fails validation.
        const ok = await graphql(t, 'query ReadUser($id: ID!) { user(id: $id) { id name } }', user.token, {
          id: String(user.id),
        });
        assert.equal(ok.body.errors, undefined, ok.text);
        const failing = await graphql(t, 'mutation DeleteSomeone { deleteUser(id: "1") }', user.token);
        assert.ok(failing.body.errors, failing.text);
        const invalid = await graphql(t, 'query Broken { user(id: "1") { noSuchField } }', user.token);
        assert.ok(invalid.body.errors && invalid.body.data === undefined, invalid.text);

        // Sign-in attempts past RATE_LIMIT_AUTH_MAX.
        const attempt = () =>
          t.request('POST', '/api/auth/token', { body: { email: 'nobody@example.com', password: 'wrong-password' } });
        const statuses = [(await attempt()).status, (await attempt()).status, (await attempt()).status];
        assert.deepEqual(statuses, [401, 401, 429]);

        // A report job, left queued (no worker here).
        assert.equal(
          (await t.request('POST', '/api/reports/generate', { token: t.adminToken, body: { type: 'sales' } })).status,
          202,
        );

        assert.equal(await provokeShedding(t), 1, 'a request was shed');
        await sleep(300);
        const samples = await scrape(t);

        // HTTP: the route pattern without the version prefix, the version its own label.
        const requests = find(samples, 'http_requests_total', {
          route: '/api/users/:userId',
          method: 'GET',
          status_code: '200',
        });
        assert.deepEqual(Object.fromEntries(requests.map((s) => [s.labels.version, s.value])), { '1': 2, '2': 2 });
        assert.ok(
          !samples.some((s) => /^\/api\/v\d/.test(s.labels.route ?? '')),
          'no route label carries a version prefix',
        );
        assert.equal(
          value(samples, 'http_requests_total', { route: '/graphql', method: 'POST', status_code: '200' }),
          3,
        );
        assert.equal(
          value(samples, 'http_request_duration_seconds_count', { route: '/api/users/:userId', method: 'GET' }),
          4,
        );
        assert.equal(
          find(samples, 'http_request_duration_seconds_bucket', { route: '/api/users/:userId' }).length,
          HTTP_DURATION_BUCKETS.length + 1,
        );
        assert.equal(
          find(samples, 'http_request_duration_seconds_count', { route: '/metrics' }).length,
          0,
          'the scrape is counted, not timed',
        );

        // Database: pool gauges and statement durations by kind.
        const max = value(samples, 'db_pool_max_connections');
        assert.equal(max, dialect.name === 'postgres' ? 3 : 1);
        const inUse = value(samples, 'db_pool_connections', { state: 'in_use' });
        const idle = value(samples, 'db_pool_connections', { state: 'idle' });
        assert.ok(inUse >= 0 && idle >= 0 && inUse + idle <= max, `in use ${inUse}, idle ${idle}, max ${max}`);
        assert.equal(value(samples, 'db_pool_waiting_requests'), 0);
        for (const statement of ['select', 'insert', 'update']) {
          assert.ok(value(samples, 'db_statement_duration_seconds_count', { statement, outcome: 'ok' }) > 0, statement);
        }
        if (dialect.name === 'postgres')
          assert.ok(
            value(samples, 'db_statement_duration_seconds_count', { statement: 'transaction', outcome: 'ok' }) > 0,
          );

        // GraphQL operations: names only of validated operations.
        assert.equal(
          value(samples, 'graphql_operations_total', {
            operation_name: 'ReadUser',
            operation_type: 'query',
            outcome: 'success',
          }),
          1,
        );
        assert.equal(
          value(samples, 'graphql_operations_total', {
            operation_name: 'DeleteSomeone',
            operation_type: 'mutation',
            outcome: 'error',
          }),
          1,
        );
        assert.equal(
          value(samples, 'graphql_operations_total', {
            operation_name: '(none)',
            operation_type: '(none)',
            outcome: 'rejected',
          }),
          1,
        );
        assert.equal(find(samples, 'graphql_operations_total', { operation_name: 'Broken' }).length, 0);

        // Rate limits, shedding, replays, the report queue.
        assert.equal(value(samples, 'rate_limit_rejections_total', { limit: 'token_attempts' }), 1);
        assert.equal(value(samples, 'rate_limit_rejections_total', { limit: 'requests' }), 0);
        assert.equal(value(samples, 'rate_limit_rejections_total', { limit: 'graphql_cost' }), 0);
        assert.ok(value(samples, 'overload_shed_requests_total') >= 1);
        assert.equal(value(samples, 'idempotency_replays_total', { route: '/api/orders' }), 1);
        assert.equal(value(samples, 'report_jobs_queued'), 1);
        const age = value(samples, 'report_jobs_oldest_queued_age_seconds');
        assert.ok(age > 0 && age < 600, `oldest queued job ${age} s old`);
      } finally {
        await t.close();
      }
    });

    it('keeps HTTP durations under 480 series, one set per served route pattern, after every served route under every prefix', async (context) => {
      const t = await startTestServer(dialect, { REPORT_WORKER: 'false' });
      try {
        const routes = servedRoutes(t.server.app.http);
        assert.ok(
          routes.some((route) => route.includes(' /api/v2/')) && routes.some((route) => route.includes(' /api/v1/')),
        );
        for (const route of routes) {
          const [method, pattern] = route.split(' ') as [string, string];
          // An id no row has: every route answers (200, 4xx), none changes the admin's own account.
          // The event stream never ends: a refused request (422) is timed like any answer.
          const query = pattern.endsWith('/events/stream') ? '?limit=0' : '';
          const res = await t.request(method, `${pattern.replace(/:\w+/g, '999999')}${query}`, {
            token: t.adminToken,
            ...(method === 'GET' || method === 'DELETE' ? {} : { body: {} }),
          });
          assert.ok(res.status < 500, `${route}: ${res.status} ${res.text.slice(0, 200)}`);
        }
        const samples = await scrape(t);
        const durations = samples.filter((s) => s.name.startsWith('http_request_duration_seconds'));
        const counted = new Set(find(samples, 'http_requests_total').map((s) => s.labels.route));
        const timedRoutes = new Set(
          find(samples, 'http_request_duration_seconds_count').map((s) => `${s.labels.method} ${s.labels.route}`),
        );
        assert.ok(timedRoutes.size >= 40, `${timedRoutes.size} timed routes`);
        context.diagnostic(
          `${routes.length} served routes; ${durations.length} duration series over ${timedRoutes.size} timed routes; ${counted.size} route labels in http_requests_total`,
        );
        // No unbounded label: every timed label is a pattern of the route table (the version prefix
        // dropped), never a raw URL, and each costs exactly its buckets, +Inf, sum and count.
        const patterns = new Set(routes.map((route) => route.replace(/ \/api\/v\d+(?=\/|$)/, ' /api')));
        const unknown = [...timedRoutes].filter((route) => !patterns.has(route));
        assert.deepEqual(unknown, [], 'timed labels that are no served route pattern');
        assert.equal(durations.length, timedRoutes.size * (HTTP_DURATION_BUCKETS.length + 3));
        // The ceiling: the metrics issue set 300 (44 timed routes, 264 series). DECISIONS §18 and §19 added
        // legitimate routes (batches, writes by filter, imports, restores, post updates and deletes,
        // GET /comments, /customers, /me): 69 timed method and pattern pairs, 414 series, still bounded by
        // the route table (asserted above). 480 leaves room for 11 more routes; past it, decide which
        // routes are timed (app.ts isTimedRoute) rather than raise it again (§19's history routes were
        // decided so: counted, not timed).
        assert.ok(
          durations.length < 480,
          `${durations.length} duration series (${timedRoutes.size} routes × ${HTTP_DURATION_BUCKETS.length + 3})`,
        );
        assert.ok(![...counted].some((route) => /^\/api\/v\d/.test(route ?? '')), 'no version prefix in route labels');
      } finally {
        await t.close();
      }
    });
  });
}
