import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config/config.ts';
import { corsOriginsOf } from '../../src/core/hardening/http-hardening.ts';

describe('security configuration', () => {
  it('refuses to start in production without JWT_SECRET, JWT_JWKS_URL or JWT_PUBLIC_KEY', () => {
    assert.throws(
      () => loadConfig({ NODE_ENV: 'production' }),
      (error: unknown) => error instanceof ConfigError && /JWT_SECRET or JWT_JWKS_URL must be set/.test(error.message),
    );
  });

  it('starts in production with only an external identity provider (JWT_JWKS_URL)', () => {
    const config = loadConfig({ NODE_ENV: 'production', JWT_JWKS_URL: 'https://idp.example/.well-known/jwks.json' });
    assert.equal(config.JWT_JWKS_URL, 'https://idp.example/.well-known/jwks.json');
  });

  it('has the documented defaults: 1000 requests a minute, 10 token attempts a minute, 8 KiB URLs, no CORS origins', () => {
    const config = loadConfig({});
    assert.equal(config.RATE_LIMIT_MAX, 1000);
    assert.equal(config.RATE_LIMIT_WINDOW_MS, 60000);
    assert.equal(config.RATE_LIMIT_AUTH_MAX, 10);
    assert.equal(config.MAX_URL_LENGTH, 8192);
    assert.equal(config.CORS_ORIGINS, undefined);
    assert.equal(config.REDIS_URL, undefined);
    assert.ok(config.HEADERS_TIMEOUT_MS < config.REQUEST_TIMEOUT_MS);
  });

  it('rejects a JWKS URL that is not http(s), a header timeout not below the request timeout, and a zero rate limit', () => {
    assert.throws(() => loadConfig({ JWT_JWKS_URL: 'file:///etc/jwks.json' }), /JWT_JWKS_URL/);
    assert.throws(() => loadConfig({ HEADERS_TIMEOUT_MS: '30000', REQUEST_TIMEOUT_MS: '30000' }), /HEADERS_TIMEOUT_MS/);
    assert.throws(() => loadConfig({ RATE_LIMIT_MAX: '0' }), /RATE_LIMIT_MAX/);
  });

  it('reads CORS_ORIGINS as a comma list, ignoring spaces, empty entries and trailing slashes', () => {
    assert.deepEqual(corsOriginsOf(' https://a.example/ ,,https://b.example:8443 '), [
      'https://a.example',
      'https://b.example:8443',
    ]);
    assert.deepEqual(corsOriginsOf(undefined), []);
  });
});
