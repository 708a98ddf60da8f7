import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SignJWT, generateKeyPair } from 'jose';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { TEST_ADMIN, startTestServer, type TestServer } from '../../../test/support/test-server.ts';

const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

for (const dialect of DIALECTS) {
  describe(`authentication (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let key: Uint8Array;
    let userId: number;
    before(async () => {
      t = await startTestServer(dialect);
      key = new TextEncoder().encode(t.config.jwtSecret);
      const created = await t.request('POST', '/api/users', {
        body: { name: 'Pat', email: 'pat@example.com', password: 'pat-password-1' },
      });
      userId = created.body.id;
    });
    after(() => t?.close());

    const token = (claims: Record<string, unknown> = {}, setup?: (jwt: SignJWT) => SignJWT) => {
      let jwt = new SignJWT({ role: 'user', ...claims })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(String(userId))
        .setIssuer(t.config.JWT_ISSUER)
        .setAudience(t.config.JWT_AUDIENCE)
        .setIssuedAt()
        .setExpirationTime('5m');
      if (setup) jwt = setup(jwt);
      return jwt.sign(key);
    };

    const expect401 = async (authorization: string | undefined, description: RegExp) => {
      const res = await t.request('GET', `/api/users/${userId}`, { headers: authorization ? { authorization } : {} });
      assert.equal(res.status, 401);
      assert.equal(res.body.error.code, 'UNAUTHORIZED');
      assert.match(res.headers.get('www-authenticate') ?? '', description);
    };

    describe('POST /api/auth/token', () => {
      it('issues a Bearer JWT with the documented claims for the right password', async () => {
        const res = await t.request('POST', '/api/auth/token', {
          body: { email: 'PAT@example.com', password: 'pat-password-1' },
        });
        assert.equal(res.status, 200);
        assert.equal(res.body.token_type, 'Bearer');
        assert.equal(res.body.expires_in, 900);
        assert.equal(res.headers.get('cache-control'), 'no-store');
        const [, payload] = res.body.access_token.split('.');
        const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
        assert.equal(claims.sub, String(userId));
        assert.equal(claims.role, 'user');
        assert.equal(claims.iss, 'content-service');
        assert.equal(claims.aud, 'content-service');
        assert.equal(claims.exp - claims.iat, 900);
        const me = await t.request('GET', `/api/users/${userId}`, { token: res.body.access_token });
        assert.equal(me.status, 200);
      });

      it('gives a wrong email and a wrong password the same 401 INVALID_CREDENTIALS', async () => {
        const wrongPassword = await t.request('POST', '/api/auth/token', {
          body: { email: 'pat@example.com', password: 'nope-nope' },
        });
        const wrongEmail = await t.request('POST', '/api/auth/token', {
          body: { email: 'nobody@example.com', password: 'nope-nope' },
        });
        for (const res of [wrongPassword, wrongEmail]) {
          assert.equal(res.status, 401);
          assert.equal(res.body.error.code, 'INVALID_CREDENTIALS');
        }
        assert.deepEqual(wrongPassword.body, wrongEmail.body);
      });

      it('refuses a token to a user without a password and to a suspended user', async () => {
        const noPassword = await t.createUser();
        const res = await t.request('POST', '/api/auth/token', {
          body: { email: noPassword.user.email, password: 'anything-1' },
        });
        assert.equal(res.status, 401);
        await t.request('POST', '/api/users', {
          token: t.adminToken,
          body: { name: 'Sue', email: 'sue@example.com', password: 'sue-password-1', status: 'suspended' },
        });
        const suspended = await t.request('POST', '/api/auth/token', {
          body: { email: 'sue@example.com', password: 'sue-password-1' },
        });
        assert.equal(suspended.status, 403);
        assert.equal(suspended.body.error.code, 'FORBIDDEN');
      });

      it('answers 422 for a missing password or an unknown field', async () => {
        const missing = await t.request('POST', '/api/auth/token', { body: { email: 'pat@example.com' } });
        assert.equal(missing.status, 422);
        assert.equal(missing.body.error.details[0].field, 'password');
        const extra = await t.request('POST', '/api/auth/token', {
          body: { email: 'a@b.co', password: 'x', role: 'admin' },
        });
        assert.equal(extra.status, 422);
      });

      it('lets the bootstrapped admin sign in', async () => {
        const res = await t.request('POST', '/api/auth/token', { body: TEST_ADMIN });
        assert.equal(res.status, 200);
        const [, payload] = res.body.access_token.split('.');
        assert.equal(JSON.parse(Buffer.from(payload, 'base64url').toString()).role, 'admin');
      });
    });

    describe('bearer tokens', () => {
      it('accepts a valid token', async () => {
        const res = await t.request('GET', `/api/users/${userId}`, { token: await token() });
        assert.equal(res.status, 200);
      });

      it('refuses a missing token', () => expect401(undefined, /^Bearer realm/));

      it('refuses a malformed Authorization header', () => expect401('Basic dXNlcjpwYXNz', /malformed/));

      it('refuses an expired token', async () => {
        const expired = await token({}, (jwt) =>
          jwt.setIssuedAt(Math.floor(Date.now() / 1000) - 3600).setExpirationTime(Math.floor(Date.now() / 1000) - 600),
        );
        await expect401(`Bearer ${expired}`, /expired/);
      });

      it('refuses a token signed with another secret', async () => {
        const forged = await new SignJWT({ role: 'admin' })
          .setProtectedHeader({ alg: 'HS256' })
          .setSubject(String(userId))
          .setIssuer(t.config.JWT_ISSUER)
          .setAudience(t.config.JWT_AUDIENCE)
          .setIssuedAt()
          .setExpirationTime('5m')
          .sign(new TextEncoder().encode('another-secret-another-secret-another'));
        await expect401(`Bearer ${forged}`, /signature/);
      });

      it('refuses alg "none"', async () => {
        const now = Math.floor(Date.now() / 1000);
        const unsigned = `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ sub: String(userId), role: 'admin', iss: t.config.JWT_ISSUER, aud: t.config.JWT_AUDIENCE, iat: now, exp: now + 300 })}.`;
        await expect401(`Bearer ${unsigned}`, /invalid_token/);
      });

      it('refuses an algorithm that is not allowed (RS256)', async () => {
        const { privateKey } = await generateKeyPair('RS256');
        const rs = await new SignJWT({ role: 'user' })
          .setProtectedHeader({ alg: 'RS256' })
          .setSubject(String(userId))
          .setIssuer(t.config.JWT_ISSUER)
          .setAudience(t.config.JWT_AUDIENCE)
          .setIssuedAt()
          .setExpirationTime('5m')
          .sign(privateKey);
        await expect401(`Bearer ${rs}`, /algorithm/);
      });

      it('refuses a wrong audience and a wrong issuer', async () => {
        await expect401(`Bearer ${await token({}, (jwt) => jwt.setAudience('someone-else'))}`, /aud/);
        await expect401(`Bearer ${await token({}, (jwt) => jwt.setIssuer('https://evil.example'))}`, /iss/);
      });

      it('refuses a token without an expiry, and one with a malformed subject or role', async () => {
        const noExp = await new SignJWT({ role: 'user' })
          .setProtectedHeader({ alg: 'HS256' })
          .setSubject(String(userId))
          .setIssuer(t.config.JWT_ISSUER)
          .setAudience(t.config.JWT_AUDIENCE)
          .setIssuedAt()
          .sign(key);
        await expect401(`Bearer ${noExp}`, /exp/);
        await expect401(`Bearer ${await token({}, (jwt) => jwt.setSubject('root'))}`, /claims/);
        await expect401(`Bearer ${await token({ role: 'superuser' })}`, /claims/);
      });

      it('refuses a token that is not yet valid (nbf in the future)', async () => {
        await expect401(
          `Bearer ${await token({}, (jwt) => jwt.setNotBefore(Math.floor(Date.now() / 1000) + 3600))}`,
          /nbf/,
        );
      });

      it('refuses an invalid token even on a public route', async () => {
        const res = await t.request('POST', '/api/users', {
          headers: { authorization: 'Bearer not.a.token' },
          body: { name: 'X', email: 'x-public@example.com' },
        });
        assert.equal(res.status, 401);
      });
    });
  });
}
