import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { SECURITY_TEST_ENV } from '../../../test/security/security-test-env.test-support.ts';
import { checkIncoming, type CheckedAnswer } from '../../../test/support/checked-answer.ts';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

/** The raw status and headers (fetch would hide nothing here, but a raw client shows what was sent), checked against the document. */
function rawGet(base: string, path: string, headers: Record<string, string>): Promise<CheckedAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}${path}`, { headers }, (res) =>
      checkIncoming('GET', path, res).then(resolve, reject),
    );
    req.on('error', reject);
    req.end();
  });
}

const ORIGIN = 'https://app.example';

for (const dialect of DIALECTS) {
  describe(`HTTP details (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(dialect, { ...SECURITY_TEST_ENV, CORS_ORIGINS: ORIGIN });
    });
    after(() => t?.close());

    it('a 304 carries no Content-Length of its own (only the 200 would have one, RFC 9110 §8.6)', async () => {
      const full = await rawGet(t.url, '/api/products', {});
      assert.equal(full.status, 200);
      const etag = String(full.headers.get('etag'));
      const notModified = await rawGet(t.url, '/api/products', { 'if-none-match': etag });
      assert.equal(notModified.status, 304);
      assert.equal(notModified.text, '');
      const length = notModified.headers.get('content-length');
      assert.ok(length === null || length === full.headers.get('content-length'), `304 says Content-Length: ${length}`);
    });

    it('an OPTIONS request that is no CORS preflight is answered in the error envelope (405 with Allow, or 404), as without CORS', async () => {
      for (const headers of [{ origin: ORIGIN }, {}, { 'access-control-request-method': 'GET' }] as Record<
        string,
        string
      >[]) {
        const known = await t.request('OPTIONS', '/api/products', { headers });
        assert.equal(known.status, 405, known.text);
        assert.equal(known.body.error.code, 'METHOD_NOT_ALLOWED');
        assert.match(known.headers.get('allow') ?? '', /GET/);
        const unknown = await t.request('OPTIONS', '/api/no-such-thing', { headers });
        assert.equal(unknown.status, 404, unknown.text);
        assert.equal(unknown.body.error.code, 'NOT_FOUND');
      }
      const preflight = await t.request('OPTIONS', '/api/products', {
        headers: { origin: ORIGIN, 'access-control-request-method': 'POST' },
      });
      assert.equal(preflight.status, 204);
      assert.equal(preflight.headers.get('access-control-allow-origin'), ORIGIN);
    });

    it('a refused API version (400 UNSUPPORTED_VERSION, 406 from Accept) still says API-Version, as every REST answer does', async () => {
      const refusals: { path: string; headers: Record<string, string>; status: number; code: string }[] = [
        { path: '/api/products', headers: { 'api-version': '9' }, status: 400, code: 'UNSUPPORTED_VERSION' },
        { path: '/api/v3/products', headers: {}, status: 400, code: 'UNSUPPORTED_VERSION' },
        { path: '/api/products?version=0', headers: {}, status: 400, code: 'UNSUPPORTED_VERSION' },
        {
          path: '/api/products',
          headers: { accept: 'application/vnd.content.v9+json' },
          status: 406,
          code: 'NOT_ACCEPTABLE',
        },
      ];
      for (const refusal of refusals) {
        const res = await t.request('GET', refusal.path, { headers: refusal.headers });
        assert.equal(res.status, refusal.status, refusal.path);
        assert.equal(res.body.error.code, refusal.code);
        // Answered by the current version: the refusal names no version the client could have meant.
        assert.equal(res.headers.get('api-version'), '2', `${refusal.path} ${JSON.stringify(refusal.headers)}`);
        assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
      }
    });

    it('a URL refused before routing (414 for a path segment over 100 characters, 400 for a broken percent-escape) or over 8 KiB still says API-Version, with the request id and security headers', async () => {
      const segment = '1'.repeat(101);
      const refusals: {
        path: string;
        headers?: Record<string, string>;
        status: number;
        code: string;
        version: string;
      }[] = [
        { path: `/api/v1/users/${segment}`, status: 414, code: 'URI_TOO_LONG', version: '1' },
        { path: `/api/v2/users/${segment}/posts`, status: 414, code: 'URI_TOO_LONG', version: '2' },
        {
          path: `/api/products/${segment}`,
          headers: { 'api-version': '2' },
          status: 414,
          code: 'URI_TOO_LONG',
          version: '2',
        },
        { path: '/api/v1/users/%ff', status: 400, code: 'BAD_REQUEST', version: '1' },
        { path: '/api/v2/posts/%zz/comments', status: 400, code: 'BAD_REQUEST', version: '2' },
        { path: '/api/users/%E0%A4%A', status: 400, code: 'BAD_REQUEST', version: '1' },
        // A refused version is answered by the current one, as for any refusal (the test above).
        { path: '/api/users/%ff', headers: { 'api-version': '9' }, status: 400, code: 'BAD_REQUEST', version: '2' },
        { path: `/api/products?search=${'a'.repeat(8200)}`, status: 414, code: 'URI_TOO_LONG', version: '1' },
      ];
      for (const refusal of refusals) {
        const where = `${refusal.path.slice(0, 40)} ${JSON.stringify(refusal.headers ?? {})}`;
        const res = await t.request('GET', refusal.path, { headers: refusal.headers ?? {} });
        assert.equal(res.status, refusal.status, where);
        assert.equal(res.body?.error?.code, refusal.code, where);
        assert.match(res.headers.get('content-type') ?? '', /^application\/json/, where);
        assert.equal(res.headers.get('api-version'), refusal.version, where);
        if (refusal.version === '1') {
          assert.equal(res.headers.get('deprecation'), 'true', where);
          assert.ok(res.headers.get('sunset'), where);
          assert.match(res.headers.get('link') ?? '', /^<\/api\/v2\/.*>; rel="successor-version"$/, where);
        }
        assert.ok(res.headers.get('x-request-id'), where);
        assert.equal(res.headers.get('x-content-type-options'), 'nosniff', where);
        assert.ok(!res.text.includes(segment), `the answer quotes the URL: ${res.text.slice(0, 200)}`);
      }
    });

    it('lets a browser read Idempotent-Replayed and WWW-Authenticate (Access-Control-Expose-Headers)', async () => {
      const denied = await t.request('GET', '/api/orders', {
        headers: { origin: ORIGIN, authorization: 'Bearer not-a-token' },
      });
      assert.equal(denied.status, 401);
      assert.ok(denied.headers.get('www-authenticate'));
      const exposed = (denied.headers.get('access-control-expose-headers') ?? '').toLowerCase().split(/\s*,\s*/);
      for (const name of [
        'idempotent-replayed',
        'www-authenticate',
        'retry-after',
        'etag',
        'location',
        'api-version',
      ]) {
        assert.ok(exposed.includes(name), `${name} in ${exposed.join(', ')}`);
      }
    });
  });
}
