import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { memoizeTokenVerifier } from '../hardening/verified-token-memo.ts';
import { registerAccessControl } from './access.ts';
import { createRightsCheck } from './rights.ts';
import { createTokenService } from './tokens.ts';
import '../http/fastify-types.ts';

const tokens = createTokenService({
  secret: 'access-test-secret-access-test-secret',
  issuer: 'test',
  audience: 'test',
  ttlSeconds: 600,
});
/** Every user exists with the role their token claims (the rights read itself is tested with the real app). */
let rightsReads = 0;
const rights = createRightsCheck(async () => {
  rightsReads += 1;
  return { role: 'admin', status: 'active' };
});
/** The memo, counting what the hook asks of it. */
const memo = memoizeTokenVerifier(tokens);
let verifications = 0;
const verifier = {
  verifiedNow: (token: string) => memo.verifiedNow!(token),
  verify: (token: string) => {
    verifications += 1;
    return memo.verify(token);
  },
};

/**
 * The access hook alone, over the real token service and its memo, on routes whose handlers refuse
 * nothing themselves: whatever is refused here, the hook refused. Every request is sent twice: the
 * first verifies the token, the second finds it in the memo and is decided without a promise.
 */
describe('the access check of every route', () => {
  let app: FastifyInstance;
  before(async () => {
    app = Fastify();
    registerAccessControl(app, verifier, rights);
    app.setErrorHandler((error: { status?: number }, _request, reply) =>
      reply.code(error.status ?? 500).send({ status: error.status }),
    );
    const whoami = async (request: { principal: unknown }) => ({ principal: request.principal });
    app.get('/public', { config: { access: 'public' } }, whoami);
    app.get('/user', { config: { access: 'user' } }, whoami);
    app.get('/admin', { config: { access: 'admin' } }, whoami);
    app.post('/user', { config: { access: 'user' } }, whoami);
    await app.ready();
  });
  after(() => app?.close());

  const twice = async (url: string, authorization?: string) => {
    const answers = [];
    for (let i = 0; i < 2; i += 1) {
      const res = await app.inject({ method: 'GET', url, headers: authorization ? { authorization } : {} });
      answers.push({ status: res.statusCode, body: res.json() as unknown });
    }
    assert.deepEqual(answers[1], answers[0], `${url}: the memo's answer differs from the first one`);
    return answers[0]!;
  };

  it('lets anyone reach a public route and refuses signed-in routes without a token (401)', async () => {
    assert.deepEqual(await twice('/public'), { status: 200, body: { principal: null } });
    assert.equal((await twice('/user')).status, 401);
    assert.equal((await twice('/admin')).status, 401);
  });

  it("gives a user's routes the verified principal and refuses an administrator's route (403)", async () => {
    const { access_token } = await tokens.issue({ userId: 7, role: 'user' });
    assert.deepEqual(await twice('/user', `Bearer ${access_token}`), {
      status: 200,
      body: { principal: { userId: 7, role: 'user' } },
    });
    assert.deepEqual((await twice('/public', `Bearer ${access_token}`)).body, {
      principal: { userId: 7, role: 'user' },
    });
    assert.equal((await twice('/admin', `Bearer ${access_token}`)).status, 403);
  });

  it('lets an administrator token reach an administrator route', async () => {
    const { access_token } = await tokens.issue({ userId: 1, role: 'admin' });
    assert.equal((await twice('/admin', `Bearer ${access_token}`)).status, 200);
  });

  it('refuses a malformed header or a token that does not verify with 401, on public routes too', async () => {
    assert.equal((await twice('/public', 'Basic dXNlcjpwYXNz')).status, 401);
    assert.equal((await twice('/public', 'Bearer not.a.token')).status, 401);
    assert.equal((await twice('/user', 'Bearer not.a.token')).status, 401);
  });

  it('takes one decision per request: the token verified at most once, the current rights read once for a write', async () => {
    const { access_token } = await tokens.issue({ userId: 9, role: 'user' });
    const seen = [];
    for (let i = 0; i < 2; i += 1) {
      [verifications, rightsReads] = [0, 0];
      const res = await app.inject({
        method: 'POST',
        url: '/user',
        headers: { authorization: `Bearer ${access_token}` },
      });
      assert.equal(res.statusCode, 200);
      seen.push({ verifications, rightsReads });
    }
    // The first request verifies the token; the second finds it in the memo and does not ask again.
    assert.deepEqual(seen, [
      { verifications: 1, rightsReads: 1 },
      { verifications: 0, rightsReads: 1 },
    ]);
  });

  it('refuses a header that is not "Bearer <token68>" with 401 without verifying anything', async () => {
    verifications = 0;
    for (const authorization of ['Bearer', 'Bearer a$b', 'Bearer a b', 'Token abc']) {
      const res = await app.inject({ method: 'GET', url: '/public', headers: { authorization } });
      assert.equal(res.statusCode, 401, authorization);
    }
    assert.equal(verifications, 0);
  });
});
