import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SignJWT } from 'jose';
import { DIALECTS } from '../support/dialects.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import {
  generateIdpKey,
  IDP_AUDIENCE,
  IDP_ISSUER,
  signIdpToken,
  startJwksServer,
  type IdpKey,
  type JwksServer,
} from './jwks-server.test-support.ts';
import { SECURITY_TEST_ENV } from './security-test-env.test-support.ts';

/** DECISIONS §5: every claim is checked, `iat` included; `sub` must name a user id the database can hold. */

const HOUR = 3600;

for (const dialect of DIALECTS) {
  describe(`token claims (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let jwks: JwksServer;
    let rsa: IdpKey;
    let userId: number;

    /** An HS256 token signed with the service's own secret; `claims` override the valid defaults. */
    const ownToken = (claims: Record<string, unknown>) => {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({ role: 'user', iat: now, exp: now + 600, ...claims })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setIssuer(t.config.JWT_ISSUER)
        .setAudience(t.config.JWT_AUDIENCE)
        .sign(new TextEncoder().encode(t.config.jwtSecret));
    };
    const refused = async (token: string, reason: RegExp, method = 'GET', path = `/api/users/${userId}`) => {
      const res = await t.request(method, path, { token, ...(method === 'POST' ? { body: { items: [] } } : {}) });
      assert.equal(res.status, 401, res.text);
      assert.equal(res.body.error.code, 'UNAUTHORIZED');
      assert.match(res.headers.get('www-authenticate') ?? '', reason);
    };

    before(async () => {
      rsa = await generateIdpKey('rsa-claims', 'RS256');
      jwks = await startJwksServer([rsa]);
      t = await startTestServer(dialect, {
        ...SECURITY_TEST_ENV,
        JWT_JWKS_URL: jwks.url,
        JWT_EXTERNAL_ISSUER: IDP_ISSUER,
        JWT_EXTERNAL_AUDIENCE: IDP_AUDIENCE,
        JWT_JWKS_COOLDOWN_MS: '0',
      });
      userId = (await t.createUser()).id;
    });
    after(async () => {
      await t?.close();
      await jwks?.close();
    });

    it('refuses an iat an hour in the future, in our own tokens and in the identity provider’s', async () => {
      const now = Math.floor(Date.now() / 1000);
      await refused(
        await ownToken({ sub: String(userId), iat: now + HOUR, exp: now + 2 * HOUR }),
        /iat claim is in the future/,
      );
      await refused(
        await signIdpToken(rsa, { sub: String(userId), iat: now + HOUR, exp: now + 2 * HOUR }),
        /iat claim is in the future/,
      );
    });

    it('answers an expired token with a 401 whose message names the expiry and how to get a new token', async () => {
      const now = Math.floor(Date.now() / 1000);
      const exp = now - HOUR;
      const expiredAt = new Date(exp * 1000).toISOString();
      const cases = [
        {
          token: await ownToken({ sub: String(userId), iat: now - 2 * HOUR, exp }),
          renew: /POST \/api\/v2\/auth\/token/,
        },
        {
          token: await signIdpToken(rsa, { sub: String(userId), iat: now - 2 * HOUR, exp }),
          renew: /identity provider/,
        },
      ];
      for (const { token, renew } of cases) {
        const res = await t.request('GET', `/api/users/${userId}`, { token });
        assert.equal(res.status, 401, res.text);
        assert.equal(res.body.error.code, 'UNAUTHORIZED');
        assert.match(res.body.error.message, new RegExp(`expired at ${expiredAt.replace(/\./g, '\\.')}`));
        assert.match(res.body.error.message, renew);
        assert.match(res.headers.get('www-authenticate') ?? '', /error="invalid_token".*the token has expired/);
      }
    });

    it('accepts an iat ahead by less than the clock tolerance', async () => {
      const now = Math.floor(Date.now() / 1000);
      for (const token of [
        await ownToken({ sub: String(userId), iat: now + 10 }),
        await signIdpToken(rsa, { sub: String(userId), iat: now + 10 }),
      ]) {
        const res = await t.request('GET', `/api/users/${userId}`, { token });
        assert.equal(res.status, 200, res.text);
      }
    });

    it('refuses a sub beyond the database integer range as an invalid token, on reads and writes', async () => {
      for (const sub of ['2147483648', '9007199254740991', '99999999999']) {
        await refused(await ownToken({ sub }), /claims are malformed/, 'GET', '/api/orders');
        await refused(await ownToken({ sub, role: 'admin' }), /claims are malformed/, 'GET', '/api/orders');
        await refused(await signIdpToken(rsa, { sub }), /claims are malformed/, 'POST', '/api/orders');
      }
    });

    it('accepts the largest id as a subject, which then names nobody (401 on a write, not 500)', async () => {
      const token = await ownToken({ sub: '2147483647' });
      assert.equal((await t.request('GET', '/api/orders', { token })).status, 200);
      await refused(token, /user no longer exists/, 'POST', '/api/orders');
    });
  });
}
