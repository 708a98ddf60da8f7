import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { DIALECTS } from '../support/dialects.ts';
import { REDIS_URL, redisUp } from '../support/redis.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { SECURITY_TEST_ENV } from './security-test-env.test-support.ts';

for (const dialect of DIALECTS) {
  describe(
    `rate limits shared through Redis (${dialect.name})`,
    { skip: dialect.skip || (!redisUp && `Redis not reachable at ${REDIS_URL}`) },
    () => {
      const MAX = 6;
      // A prefix of its own per run: parallel runs and earlier runs never share counters.
      const prefix = `content-service-test:${randomBytes(6).toString('hex')}:`;
      let a: TestServer;
      let b: TestServer;
      before(async () => {
        const env = {
          ...SECURITY_TEST_ENV,
          REDIS_URL,
          RATE_LIMIT_REDIS_PREFIX: prefix,
          RATE_LIMIT_MAX: String(MAX),
          RATE_LIMIT_AUTH_MAX: '2',
        };
        a = await startTestServer(dialect, env);
        // Same secret: a token from one instance is valid on the other, as behind a load balancer.
        b = await startTestServer(dialect, { ...env, JWT_SECRET: a.config.jwtSecret });
      });
      after(async () => {
        await a?.close();
        await b?.close();
        const redis = new Redis(REDIS_URL);
        const keys = await redis.keys(`${prefix}*`);
        if (keys.length > 0) await redis.del(...keys);
        await redis.quit();
      });

      it('gives a token subject one budget across two instances', async () => {
        const token = await a.tokenFor(1, 'admin');
        const remaining: string[] = [];
        for (let i = 0; i < MAX; i++) {
          const server = i % 2 === 0 ? a : b;
          const res = await server.request('GET', '/api/products', { token });
          assert.equal(res.status, 200);
          remaining.push(res.headers.get('ratelimit-remaining')!);
        }
        assert.deepEqual(remaining, ['5', '4', '3', '2', '1', '0']);
        for (const server of [a, b]) {
          const res = await server.request('GET', '/api/products', { token });
          assert.equal(res.status, 429);
          assert.equal(res.body.error.code, 'RATE_LIMITED');
          assert.ok(Number(res.headers.get('retry-after')) >= 1);
        }
      });

      it('shares the token endpoint’s stricter budget across instances too', async () => {
        const attempt = (server: TestServer) =>
          server.request('POST', '/api/auth/token', {
            body: { email: 'shared@example.com', password: 'wrong-password' },
          });
        assert.equal((await attempt(a)).status, 401);
        assert.equal((await attempt(b)).status, 401);
        assert.equal((await attempt(a)).status, 429);
        assert.equal((await attempt(b)).status, 429);
      });
    },
  );
}

describe('rate limits when Redis is unreachable', () => {
  it('serves requests (fails open) instead of failing or hanging', async () => {
    const t = await startTestServer(DIALECTS[0]!, {
      ...SECURITY_TEST_ENV,
      REDIS_URL: 'redis://127.0.0.1:1',
      RATE_LIMIT_MAX: '1',
    });
    try {
      for (let i = 0; i < 3; i++) {
        const started = performance.now();
        const res = await t.request('GET', '/api/products');
        assert.equal(res.status, 200);
        assert.ok(performance.now() - started < 1000);
      }
    } finally {
      await t.close();
    }
  });
});
