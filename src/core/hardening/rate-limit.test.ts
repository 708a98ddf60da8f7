import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { createTokenService } from '../access/tokens.ts';
import { sendError, toAppError } from '../http/error-envelope.ts';
import { registerRateLimits, type RateLimiter } from './rate-limit.ts';
import { memoizeTokenVerifier } from './verified-token-memo.ts';
import '../http/fastify-types.ts';

const MAX = 5;
const tokens = createTokenService({
  secret: 'rate-limit-test-secret-rate-limit-test',
  issuer: 'test',
  audience: 'test',
  ttlSeconds: 600,
});
const memo = memoizeTokenVerifier(tokens);
let verifications = 0;
/** The memo, counting the verifications the limiter asks for. */
const verifier = {
  verifiedNow: (token: string) => memo.verifiedNow!(token),
  verify: (token: string) => {
    verifications += 1;
    return memo.verify(token);
  },
};

/**
 * The limiter alone in memory, on routes that answer 200 whatever the caller (no access check):
 * what is refused here, the limiter refused. Each test has its own address, so its own budget.
 */
describe('the rate limiter', () => {
  let app: FastifyInstance;
  let limiter: RateLimiter;
  const rejected: string[] = [];
  before(async () => {
    app = Fastify();
    limiter = await registerRateLimits(
      app,
      {
        max: MAX,
        windowMs: 60_000,
        authMax: 2,
        authWindowMs: 60_000,
        redisPrefix: 'unused:',
        onRejected: (limit) => rejected.push(limit),
      },
      verifier,
    );
    app.setErrorHandler((error, _request, reply) => sendError(reply, toAppError(error)));
    app.get('/thing', async () => ({ ok: true }));
    app.get('/healthz', async () => ({ ok: true }));
    app.post('/api/auth/token', async () => ({ ok: true }));
    app.post('/graphql', async (request, reply) => {
      await limiter.charge(request, reply, Number((request.body as { weight: number }).weight));
      return { ok: true };
    });
    await app.ready();
  });
  after(() => app?.close());

  let lastAddress = 0;
  const newAddress = () => `192.0.2.${(lastAddress += 1)}`;
  const get = (remoteAddress: string, authorization?: string, url = '/thing') =>
    app.inject({ method: 'GET', url, remoteAddress, headers: authorization ? { authorization } : {} });
  const remaining = (res: { headers: Record<string, unknown> }) => Number(res.headers['ratelimit-remaining']);

  it('counts down per client address with the RateLimit headers, then refuses with 429 RATE_LIMITED and Retry-After', async () => {
    const address = newAddress();
    const left = [];
    for (let i = 0; i < MAX; i++) {
      const res = await get(address);
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['ratelimit-limit'], String(MAX));
      assert.equal(res.headers['ratelimit-reset'], '60');
      left.push(remaining(res));
    }
    assert.deepEqual(left, [4, 3, 2, 1, 0]);
    rejected.length = 0;
    const refused = await get(address);
    assert.equal(refused.statusCode, 429);
    assert.equal(refused.json().error.code, 'RATE_LIMITED');
    assert.equal(refused.headers['retry-after'], '60');
    assert.equal(refused.headers['ratelimit-remaining'], '0');
    assert.deepEqual(rejected, ['requests']);
    assert.equal((await get(newAddress())).statusCode, 200, 'another address has its own budget');
  });

  it('keys a verified token by its subject, from any address, whether it is verified now or found in the memo', async () => {
    const { access_token } = await tokens.issue({ userId: 41, role: 'user' });
    const left = [];
    for (let i = 0; i < 3; i++) left.push(remaining(await get(newAddress(), `Bearer ${access_token}`)));
    assert.deepEqual(left, [4, 3, 2]);
  });

  it('keys a forged token, or a header that is not "Bearer <token68>", by the address; a malformed one is not even verified', async () => {
    const address = newAddress();
    verifications = 0;
    const left = [];
    for (const authorization of ['Bearer forged.token.here', 'Bearer a$b', 'Bearer a b', 'Basic dXNlcjpwYXNz']) {
      left.push(remaining(await get(address, authorization)));
    }
    assert.deepEqual(left, [4, 3, 2, 1]);
    assert.equal(verifications, 1, 'only the well-formed token was verified');
  });

  it('never limits /healthz', async () => {
    const address = newAddress();
    for (let i = 0; i < MAX + 2; i++) {
      const res = await get(address, undefined, '/healthz');
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['ratelimit-limit'], undefined);
    }
  });

  it('charges a weight against the same budget and refuses a charge past it', async () => {
    const address = newAddress();
    const post = (weight: number) =>
      app.inject({ method: 'POST', url: '/graphql', remoteAddress: address, payload: { weight } });
    const cheap = await post(0);
    assert.equal(remaining(cheap), MAX - 1);
    const heavier = await post(2);
    assert.equal(remaining(heavier), MAX - 1 - 1 - 2);
    rejected.length = 0;
    const refused = await post(5);
    assert.equal(refused.statusCode, 429);
    assert.equal(refused.json().error.code, 'RATE_LIMITED');
    assert.deepEqual(rejected, ['graphql_cost']);
  });

  it('limits token attempts per address and email, with their own budget and headers', async () => {
    const address = newAddress();
    const attempt = (email: string) =>
      app.inject({ method: 'POST', url: '/api/auth/token', remoteAddress: address, payload: { email } });
    assert.equal((await attempt('a@example.com')).headers['ratelimit-limit'], '2');
    assert.equal((await attempt(' A@example.com')).statusCode, 200);
    rejected.length = 0;
    assert.equal((await attempt('a@example.com')).statusCode, 429);
    assert.deepEqual(rejected, ['token_attempts']);
    assert.equal((await attempt('b@example.com')).statusCode, 200);
  });
});
