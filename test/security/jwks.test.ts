import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { SignJWT, UnsecuredJWT } from 'jose';
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

const idpEnv = (url: string, extra: Record<string, string> = {}) => ({
  JWT_JWKS_URL: url,
  JWT_EXTERNAL_ISSUER: IDP_ISSUER,
  JWT_EXTERNAL_AUDIENCE: IDP_AUDIENCE,
  JWT_JWKS_TIMEOUT_MS: '300',
  JWT_JWKS_COOLDOWN_MS: '0',
  ...extra,
});

for (const dialect of DIALECTS) {
  describe(`external identity provider tokens (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let jwks: JwksServer;
    let rsa: IdpKey;
    let ec: IdpKey;
    let userId: number;

    const readSelf = (token: string) => t.request('GET', `/api/users/${userId}`, { token });
    const assertRefused = async (token: string, reason: RegExp) => {
      const res = await readSelf(token);
      assert.equal(res.status, 401);
      assert.equal(res.body.error.code, 'UNAUTHORIZED');
      assert.match(res.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
      assert.match(res.headers.get('www-authenticate') ?? '', reason);
    };

    before(async () => {
      rsa = await generateIdpKey('rsa-1', 'RS256');
      ec = await generateIdpKey('ec-1', 'ES256');
      jwks = await startJwksServer([rsa, ec]);
      t = await startTestServer(dialect, idpEnv(jwks.url));
      userId = (await t.createUser()).id;
    });
    after(async () => {
      await t?.close();
      await jwks?.close();
    });

    it('accepts RS256 and ES256 tokens signed by a key of the JWKS, as a user by default', async () => {
      for (const key of [rsa, ec]) {
        const res = await readSelf(await signIdpToken(key, { sub: String(userId) }));
        assert.equal(res.status, 200, res.text);
        assert.equal(res.body.id, userId);
      }
      const asUser = await t.request('GET', '/api/reports/999', {
        token: await signIdpToken(rsa, { sub: String(userId) }),
      });
      assert.equal(asUser.status, 403);
    });

    it('takes the role from the role claim', async () => {
      const res = await t.request('GET', '/api/reports/999', {
        token: await signIdpToken(rsa, { sub: '1', role: 'admin' }),
      });
      assert.equal(res.status, 404);
      await assertRefused(await signIdpToken(rsa, { sub: '1', role: 'root' }), /claims are malformed/);
    });

    it('still accepts the service’s own HS256 tokens alongside the JWKS', async () => {
      assert.equal((await readSelf(await t.tokenFor(userId))).status, 200);
    });

    it('refuses a sub that is not a positive integer user id', async () => {
      for (const sub of ['abc', '0', '-4', '1.5', 'auth0|12345', '99999999999999999999']) {
        await assertRefused(await signIdpToken(rsa, { sub }), /claims are malformed/);
      }
      await assertRefused(await signIdpToken(rsa, { sub: undefined }), /sub/);
    });

    it('refuses an expired token, a token not yet valid, and allows a clock skew of up to 30 s', async () => {
      const now = Math.floor(Date.now() / 1000);
      await assertRefused(await signIdpToken(rsa, { sub: String(userId), iat: now - 600, exp: now - 60 }), /expired/);
      await assertRefused(await signIdpToken(rsa, { sub: String(userId), nbf: now + 120 }), /nbf/);
      const skewed = await signIdpToken(rsa, { sub: String(userId), iat: now - 600, exp: now - 10, nbf: now + 10 });
      assert.equal((await readSelf(skewed)).status, 200);
    });

    it('refuses a wrong issuer or audience and a token missing either', async () => {
      await assertRefused(await signIdpToken(rsa, { sub: String(userId), iss: 'https://evil.example/' }), /iss/);
      await assertRefused(await signIdpToken(rsa, { sub: String(userId), aud: 'another-api' }), /aud/);
      await assertRefused(await signIdpToken(rsa, { sub: String(userId), aud: undefined }), /aud/);
      await assertRefused(await signIdpToken(rsa, { sub: String(userId), exp: undefined }), /exp/);
      // Our own issuer on an RS256 token is still an external token: the IdP's issuer is required.
      await assertRefused(
        await signIdpToken(rsa, { sub: String(userId), iss: t.config.JWT_ISSUER, aud: t.config.JWT_AUDIENCE }),
        /iss/,
      );
    });

    it('refuses alg none, unlisted algorithms and HS256 signed with the public key', async () => {
      const none = new UnsecuredJWT({ sub: String(userId), iss: IDP_ISSUER, aud: IDP_AUDIENCE })
        .setIssuedAt()
        .setExpirationTime('5m')
        .encode();
      await assertRefused(none, /algorithm is not allowed/);
      // RS384, PS256 and ES384 keys published in the JWKS itself: still not on the list.
      for (const alg of ['RS384', 'PS256', 'ES384']) {
        const key = await generateIdpKey(`${alg}-key`, alg);
        jwks.keys = [...jwks.keys, key];
        await assertRefused(await signIdpToken(key, { sub: String(userId) }), /algorithm is not allowed/);
      }
      // The classic confusion: HS256 keyed with the public key's bytes must not verify.
      const publicJwkBytes = new TextEncoder().encode(JSON.stringify(rsa.jwk));
      const confused = await new SignJWT({ sub: String(userId), role: 'admin' })
        .setProtectedHeader({ alg: 'HS256', kid: rsa.kid })
        .setIssuer(IDP_ISSUER)
        .setAudience(IDP_AUDIENCE)
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(publicJwkBytes);
      await assertRefused(confused, /signature/);
    });

    it('refuses a token signed by a key the JWKS does not hold, even with a known kid', async () => {
      const impostor = await generateIdpKey(rsa.kid, 'RS256');
      await assertRefused(await signIdpToken(impostor, { sub: String(userId) }), /signature/);
      const unknown = await generateIdpKey('never-published', 'RS256');
      await assertRefused(await signIdpToken(unknown, { sub: String(userId) }), /no key/);
    });
  });
}

describe('JWKS key rotation, cooldown and outages', () => {
  const dialect = DIALECTS[0]!;

  it('accepts a new kid after refetching and refuses a key removed from the JWKS', async () => {
    const oldKey = await generateIdpKey('2025-key', 'RS256');
    const newKey = await generateIdpKey('2026-key', 'ES256');
    const jwks = await startJwksServer([oldKey]);
    const t = await startTestServer(dialect, idpEnv(jwks.url));
    try {
      const id = (await t.createUser()).id;
      assert.equal(
        (await t.request('GET', `/api/users/${id}`, { token: await signIdpToken(oldKey, { sub: String(id) }) })).status,
        200,
      );
      const fetchesBefore = jwks.fetches;
      jwks.keys = [newKey];
      const fresh = await t.request('GET', `/api/users/${id}`, {
        token: await signIdpToken(newKey, { sub: String(id) }),
      });
      assert.equal(fresh.status, 200, fresh.text);
      assert.ok(jwks.fetches > fetchesBefore, 'the unknown kid made the service refetch the JWKS');
      const stale = await t.request('GET', `/api/users/${id}`, {
        token: await signIdpToken(oldKey, { sub: String(id), jti: 'after-removal' }),
      });
      assert.equal(stale.status, 401);
    } finally {
      await t.close();
      await jwks.close();
    }
  });

  it('does not refetch for unknown kids during the cooldown (no JWKS flood from forged kids)', async () => {
    const key = await generateIdpKey('k1', 'RS256');
    const jwks = await startJwksServer([key]);
    const t = await startTestServer(dialect, idpEnv(jwks.url, { JWT_JWKS_COOLDOWN_MS: '60000' }));
    try {
      const id = (await t.createUser()).id;
      assert.equal(
        (await t.request('GET', `/api/users/${id}`, { token: await signIdpToken(key, { sub: String(id) }) })).status,
        200,
      );
      const fetches = jwks.fetches;
      for (let i = 0; i < 20; i++) {
        const forged = await generateIdpKey(`forged-${i}`, 'ES256');
        const res = await t.request('GET', `/api/users/${id}`, {
          token: await signIdpToken(forged, { sub: String(id) }),
        });
        assert.equal(res.status, 401);
      }
      assert.ok(jwks.fetches <= fetches + 1, `at most one refetch in the cooldown, saw ${jwks.fetches - fetches}`);
    } finally {
      await t.close();
      await jwks.close();
    }
  });

  it('answers 401 quickly, without hanging, when the JWKS is down, slow or failing', async () => {
    const key = await generateIdpKey('k1', 'RS256');
    const jwks = await startJwksServer([key]);
    const t = await startTestServer(dialect, idpEnv(jwks.url));
    try {
      const id = (await t.createUser()).id;
      for (const mode of ['slow', 'error'] as const) {
        jwks.mode = mode;
        const started = performance.now();
        const res = await t.request('GET', `/api/users/${id}`, {
          token: await signIdpToken(key, { sub: String(id), jti: mode }),
        });
        const elapsed = performance.now() - started;
        assert.equal(res.status, 401, `${mode}: ${res.text}`);
        assert.match(res.headers.get('www-authenticate') ?? '', /could not be fetched/);
        assert.ok(elapsed < 2000, `${mode}: answered in ${Math.round(elapsed)} ms`);
      }
      await jwks.close();
      const started = performance.now();
      const res = await t.request('GET', `/api/users/${id}`, {
        token: await signIdpToken(key, { sub: String(id), jti: 'down' }),
      });
      assert.equal(res.status, 401);
      assert.ok(performance.now() - started < 2000);
    } finally {
      await t.close();
      await jwks.close().catch(() => {});
    }
  });

  it('verifies tokens against a configured PEM public key (JWT_PUBLIC_KEY)', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const t = await startTestServer(dialect, {
      JWT_PUBLIC_KEY: pem.replace(/\n/g, '\\n'),
      JWT_EXTERNAL_ISSUER: IDP_ISSUER,
      JWT_EXTERNAL_AUDIENCE: IDP_AUDIENCE,
    });
    try {
      const id = (await t.createUser()).id;
      const sign = (alg: string, key: Parameters<SignJWT['sign']>[0]) =>
        new SignJWT({ sub: String(id) })
          .setProtectedHeader({ alg })
          .setIssuer(IDP_ISSUER)
          .setAudience(IDP_AUDIENCE)
          .setIssuedAt()
          .setExpirationTime('5m')
          .sign(key);
      assert.equal(
        (await t.request('GET', `/api/users/${id}`, { token: await sign('ES256', privateKey) })).status,
        200,
      );
      const other = generateKeyPairSync('rsa', { modulusLength: 2048 });
      assert.equal(
        (await t.request('GET', `/api/users/${id}`, { token: await sign('RS256', other.privateKey) })).status,
        401,
      );
    } finally {
      await t.close();
    }
  });
});
