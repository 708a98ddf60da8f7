import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SignJWT } from 'jose';
import { DIALECTS } from '../support/dialects.ts';
import { startTestServer, TEST_ADMIN, type TestResponse, type TestServer } from '../support/test-server.ts';
import { SECURITY_TEST_ENV } from './security-test-env.test-support.ts';

const MAX = 8;

function assertRateLimited(res: TestResponse): void {
  assert.equal(res.status, 429, res.text);
  assert.equal(res.body.error.code, 'RATE_LIMITED');
  assert.equal(typeof res.body.error.message, 'string');
  const retryAfter = Number(res.headers.get('retry-after'));
  assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
  assert.equal(res.headers.get('ratelimit-remaining'), '0');
}

/** A user token for `subject` signed with `secret`: the server's own makes a second valid token, another a forgery. */
function signedToken(t: TestServer, subject: number, secret: string, expiresIn: string): Promise<string> {
  return new SignJWT({ role: 'user' })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(String(subject))
    .setIssuer(t.config.JWT_ISSUER)
    .setAudience(t.config.JWT_AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(expiresIn)
    .sign(new TextEncoder().encode(secret));
}

for (const dialect of DIALECTS) {
  describe(`rate limits (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(dialect, {
        ...SECURITY_TEST_ENV,
        RATE_LIMIT_MAX: String(MAX),
      });
    });
    after(() => t?.close());

    it('sends RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset, counting down per token subject', async () => {
      const { id, token } = await t.createUser({ role: 'user' });
      const first = await t.request('GET', `/api/users/${id}`, { token });
      assert.equal(first.status, 200);
      assert.equal(first.headers.get('ratelimit-limit'), String(MAX));
      assert.equal(first.headers.get('ratelimit-remaining'), String(MAX - 1));
      const reset = Number(first.headers.get('ratelimit-reset'));
      assert.ok(reset >= 1 && reset <= 60, `RateLimit-Reset ${reset}`);
      const second = await t.request('GET', `/api/users/${id}`, { token });
      assert.equal(second.headers.get('ratelimit-remaining'), String(MAX - 2));
    });

    it('keys the budget by the subject, not the token: a second token of the same user spends the same budget', async () => {
      const { id, token } = await t.createUser({ role: 'user' });
      // Another valid token of the same user (its own expiry, so its text differs).
      const other = await signedToken(t, id, t.config.jwtSecret, '7m');
      assert.notEqual(other, token);
      // Each token's first request verifies it; the next ones find it verified moments ago.
      const remaining = [];
      for (const used of [token, token, other, other, token]) {
        const res = await t.request('GET', `/api/users/${id}`, { token: used });
        assert.equal(res.status, 200, res.text);
        remaining.push(Number(res.headers.get('ratelimit-remaining')));
      }
      assert.deepEqual(remaining, [MAX - 1, MAX - 2, MAX - 3, MAX - 4, MAX - 5]);
    });

    it('answers 429 RATE_LIMITED with Retry-After once a subject spends its budget, without touching other subjects', async () => {
      const alice = await t.createUser({ role: 'user' });
      const bob = await t.createUser({ role: 'user' });
      for (let i = 0; i < MAX; i++)
        assert.equal((await t.request('GET', `/api/users/${alice.id}`, { token: alice.token })).status, 200);
      assertRateLimited(await t.request('GET', `/api/users/${alice.id}`, { token: alice.token }));
      // A write is refused too, before it does anything.
      assertRateLimited(
        await t.request('PATCH', `/api/users/${alice.id}`, { token: alice.token, body: { name: 'Changed' } }),
      );
      const unchanged = await t.server.db
        .selectFrom('users')
        .select('name')
        .where('id', '=', alice.id)
        .executeTakeFirstOrThrow();
      assert.notEqual(unchanged.name, 'Changed');
      const other = await t.request('GET', `/api/users/${bob.id}`, { token: bob.token });
      assert.equal(other.status, 200);
      assert.equal(other.headers.get('ratelimit-remaining'), String(MAX - 1));
    });

    it('keys a forged or invalid token by the client address, so it cannot spend the named user’s budget', async () => {
      const victim = await t.createUser({ role: 'user' });
      const forged = await signedToken(t, victim.id, 'not-the-server-secret-not-the-server-secret', '5m');
      const fresh = await startTestServer(dialect, {
        ...SECURITY_TEST_ENV,
        RATE_LIMIT_MAX: '3',
        JWT_SECRET: t.config.jwtSecret,
      });
      try {
        for (let i = 0; i < 3; i++)
          assert.equal((await fresh.request('GET', '/api/products', { token: forged })).status, 401);
        // The address is spent: even an anonymous read and an unknown route are refused now...
        assertRateLimited(await fresh.request('GET', '/api/products'));
        assertRateLimited(await fresh.request('GET', '/api/no-such-route'));
        // ...but the victim's own budget is untouched.
        const own = await fresh.request('GET', '/api/products', { token: await fresh.tokenFor(victim.id) });
        assert.equal(own.status, 200);
        assert.equal(own.headers.get('ratelimit-remaining'), '2');
      } finally {
        await fresh.close();
      }
    });

    it('never limits /healthz, /readyz and /metrics', async () => {
      const fresh = await startTestServer(dialect, { ...SECURITY_TEST_ENV, RATE_LIMIT_MAX: '2' });
      try {
        for (let i = 0; i < 2; i++) await fresh.request('GET', '/api/products');
        assertRateLimited(await fresh.request('GET', '/api/products'));
        for (const path of ['/healthz', '/readyz', '/metrics']) {
          for (let i = 0; i < 3; i++) {
            const res = await fresh.request('GET', path);
            assert.equal(res.status, 200, path);
            assert.equal(res.headers.get('ratelimit-limit'), null, path);
          }
        }
      } finally {
        await fresh.close();
      }
    });

    it('opens the budget again when the window ends', async () => {
      const fresh = await startTestServer(dialect, {
        ...SECURITY_TEST_ENV,
        RATE_LIMIT_MAX: '2',
        RATE_LIMIT_WINDOW_MS: '1000',
      });
      try {
        for (let i = 0; i < 2; i++) await fresh.request('GET', '/api/products');
        const refused = await fresh.request('GET', '/api/products');
        assertRateLimited(refused);
        assert.equal(refused.headers.get('retry-after'), '1');
        await new Promise((resolve) => setTimeout(resolve, 1100));
        assert.equal((await fresh.request('GET', '/api/products')).status, 200);
      } finally {
        await fresh.close();
      }
    });

    describe('POST /api/auth/token', () => {
      // A roomy general budget, so only the stricter one of this route can refuse.
      let t: TestServer;
      before(async () => {
        t = await startTestServer(dialect, { ...SECURITY_TEST_ENV, RATE_LIMIT_AUTH_MAX: '3' });
      });
      after(() => t?.close());

      it('limits attempts per client address and email (brute force), whatever the password', async () => {
        const attempt = (email: string, password: string) =>
          t.request('POST', '/api/auth/token', { body: { email, password } });
        for (let i = 0; i < 3; i++) assert.equal((await attempt(TEST_ADMIN.email, `wrong-password-${i}`)).status, 401);
        const blocked = await attempt(TEST_ADMIN.email, TEST_ADMIN.password);
        assertRateLimited(blocked);
        assert.equal(blocked.headers.get('ratelimit-limit'), '3');
        // Case and spaces do not make a new budget.
        assertRateLimited(await attempt(` ${TEST_ADMIN.email.toUpperCase()} `, TEST_ADMIN.password));
        // Another account from the same address is not locked out.
        assert.equal((await attempt('someone-else@example.com', 'whatever-password')).status, 401);
      });

      it('counts malformed attempts too', async () => {
        for (let i = 0; i < 3; i++) {
          assert.equal(
            (await t.request('POST', '/api/auth/token', { body: { email: 'bad@example.com' } })).status,
            422,
          );
        }
        assertRateLimited(await t.request('POST', '/api/auth/token', { body: { email: 'bad@example.com' } }));
      });
    });

    describe('GraphQL', () => {
      let t: TestServer;
      before(async () => {
        t = await startTestServer(dialect, {
          ...SECURITY_TEST_ENV,
          RATE_LIMIT_MAX: String(MAX),
          RATE_LIMIT_GRAPHQL_COST_UNIT: '10',
        });
      });
      after(() => t?.close());

      const gql = (token: string, query: string, variables?: Record<string, unknown>) =>
        t.request('POST', '/graphql', { token, body: { query, variables } });

      it('counts an operation by its cost, not as one request', async () => {
        const { token } = await t.createUser({ role: 'user' });
        const cheap = await gql(token, '{ __typename }');
        assert.equal(cheap.status, 200);
        assert.equal(cheap.headers.get('ratelimit-remaining'), String(MAX - 1));
        // 70 users at most: cost 70, with a unit of 10 it weighs 7 requests.
        const costly = await gql(token, 'query ($n: Int) { users(limit: $n) { id } }', { n: 70 });
        assert.equal(costly.status, 200, costly.text);
        assert.equal(costly.headers.get('ratelimit-remaining'), String(MAX - 1 - 7));
      });

      it('charges an operation refused for its cost or depth as one request, not by the cost it would have had', async () => {
        const { token } = await t.createUser({ role: 'user' });
        const tooCostly = await gql(
          token,
          '{ users(limit: 100) { posts(limit: 100) { comments(limit: 100) { author { name } } } } }',
        );
        assert.equal(tooCostly.body.errors[0].extensions.guard, 'cost', tooCostly.text);
        assert.equal(tooCostly.headers.get('ratelimit-remaining'), String(MAX - 1));
        const tooDeep = await gql(
          token,
          '{ users(limit: 100) { posts { author { posts { author { posts { author { posts { author { posts { id } } } } } } } } } } }',
        );
        assert.equal(tooDeep.body.errors[0].extensions.guard, 'depth', tooDeep.text);
        assert.equal(tooDeep.headers.get('ratelimit-remaining'), String(MAX - 2));
        // And the budget left still runs a real operation.
        const next = await gql(token, '{ __typename }');
        assert.equal(next.status, 200);
        assert.equal(next.headers.get('ratelimit-remaining'), String(MAX - 3));
      });

      it('refuses an operation whose cost exceeds what is left with 429 RATE_LIMITED in the GraphQL error shape', async () => {
        const { token } = await t.createUser({ role: 'user' });
        const res = await gql(token, '{ users(limit: 100) { id posts(limit: 100) { id } } }');
        assert.equal(res.status, 429, res.text);
        assert.equal(res.body.errors[0].extensions.code, 'RATE_LIMITED');
        assert.equal(res.body.data, undefined);
        assert.ok(Number(res.headers.get('retry-after')) >= 1);
      });
    });
  });
}
