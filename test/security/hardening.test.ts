import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { DIALECTS } from '../support/dialects.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { SECURITY_TEST_ENV } from './security-test-env.test-support.ts';

/**
 * Sends raw bytes and resolves with what came back and how long until the server closed the socket.
 * Not checked against the OpenAPI document: the only answer these tests can get is the 408 Fastify's
 * client-error handler writes straight onto the socket when Node gives up on the connection (headers
 * or request timeout), outside every route and hook, with no request to name an operation or version
 * (like Node's bare 431 beyond its header limit, docs/SECURITY.md).
 */
function rawExchange(
  url: string,
  bytes: string,
  limitMs: number,
): Promise<{ response: string; closedAfterMs: number }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = connect(Number(port), hostname, () => socket.write(bytes));
    let response = '';
    const guard = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server kept the connection open for ${limitMs} ms`));
    }, limitMs);
    socket.on('data', (chunk) => (response += chunk.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(guard);
      resolve({ response, closedAfterMs: performance.now() - started });
    });
  });
}

/** Helmet's headers for a rendered HTML document (opener isolation, agent cluster, DNS prefetch, IE8, Flash, the XSS auditor). */
const DOCUMENT_ONLY_HEADERS = [
  'cross-origin-opener-policy',
  'origin-agent-cluster',
  'x-dns-prefetch-control',
  'x-download-options',
  'x-permitted-cross-domain-policies',
  'x-xss-protection',
];

/** Anything that would tell an attacker about the code or the database. */
const LEAKS =
  /select |insert |update |from "|sqlite|postgres|relation|syntax error at|\.ts:\d|node_modules|\bat \S+ \(|stack/i;

for (const dialect of DIALECTS) {
  describe(`HTTP hardening (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(dialect, {
        ...SECURITY_TEST_ENV,
        HEADERS_TIMEOUT_MS: '1000',
        REQUEST_TIMEOUT_MS: '2000',
      });
    });
    after(() => t?.close());

    describe('security headers', () => {
      it('sends an API’s security headers and a CSP that allows nothing on API responses, errors and GraphQL included', async () => {
        const answers = [
          await t.request('GET', '/api/products'),
          await t.request('GET', '/api/nope'),
          await t.request('POST', '/api/users', { body: {} }),
          await t.request('POST', '/graphql', { body: { query: '{ __typename }' } }),
        ];
        for (const res of answers) {
          assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
          assert.match(res.headers.get('content-security-policy') ?? '', /default-src 'none'/);
          assert.match(res.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
          assert.match(res.headers.get('strict-transport-security') ?? '', /max-age=\d+/);
          assert.equal(res.headers.get('x-frame-options'), 'SAMEORIGIN');
          assert.equal(res.headers.get('referrer-policy'), 'no-referrer');
          assert.equal(res.headers.get('x-powered-by'), null);
          assert.equal(res.headers.get('cross-origin-resource-policy'), 'same-origin');
          // Headers that act only on a rendered HTML document: a JSON answer goes without (each costs every answer).
          for (const name of DOCUMENT_ONLY_HEADERS)
            assert.equal(res.headers.get(name), null, `${name} on ${res.status}`);
        }
      });

      it('gives the HTML pages (API docs, GraphiQL) helmet’s document headers as well', async () => {
        for (const path of ['/docs', '/graphiql']) {
          const res = await t.request('GET', path);
          assert.equal(res.status, 200, path);
          assert.match(res.headers.get('content-type') ?? '', /text\/html/, path);
          for (const name of [
            'x-content-type-options',
            'strict-transport-security',
            'cross-origin-resource-policy',
            ...DOCUMENT_ONLY_HEADERS,
          ]) {
            assert.ok(res.headers.get(name), `${name} on ${path}`);
          }
        }
      });

      it('gives the GraphiQL page a CSP that runs scripts from this server only', async () => {
        const res = await t.request('GET', '/graphiql');
        assert.equal(res.status, 200);
        const csp = res.headers.get('content-security-policy') ?? '';
        const directive = (name: string) =>
          csp
            .split(';')
            .map((d) => d.trim())
            .find((d) => d.startsWith(`${name} `)) ?? '';
        assert.equal(directive('script-src'), "script-src 'self'", 'no inline script, no CDN');
        assert.doesNotMatch(res.text, /<script(?![^>]*\ssrc=)[^>]*>/, 'every script is a file');
        const files = [...res.text.matchAll(/<(?:script|link)[^>]*\s(?:src|href)="([^"]+)"/g)].map(([, url]) => url!);
        for (const url of files.filter((url) => !url.startsWith('data:'))) {
          assert.equal(new URL(url, t.url).origin, new URL(t.url).origin, `${url} is served by this process`);
        }
        assert.match(directive('style-src'), /'self'/);
        assert.match(directive('connect-src'), /'self'/, 'the page may call /graphql');
        assert.match(csp, /frame-ancestors 'none'/);
      });
    });

    describe('CORS', () => {
      it('answers no cross-origin request by default', async () => {
        const res = await t.request('GET', '/api/products', { headers: { origin: 'https://evil.example' } });
        assert.equal(res.status, 200);
        assert.equal(res.headers.get('access-control-allow-origin'), null);
        const preflight = await t.request('OPTIONS', '/api/products', {
          headers: { origin: 'https://evil.example', 'access-control-request-method': 'DELETE' },
        });
        assert.equal(preflight.headers.get('access-control-allow-origin'), null);
      });

      it('allows exactly the origins in CORS_ORIGINS, with preflight, and keeps 404 and 405 intact', async () => {
        const cors = await startTestServer(dialect, {
          ...SECURITY_TEST_ENV,
          CORS_ORIGINS: 'https://app.example, https://admin.example/',
        });
        try {
          const preflight = await cors.request('OPTIONS', '/api/users/1', {
            headers: {
              origin: 'https://admin.example',
              'access-control-request-method': 'PATCH',
              'access-control-request-headers': 'authorization, content-type, if-match',
            },
          });
          assert.equal(preflight.status, 204);
          assert.equal(preflight.headers.get('access-control-allow-origin'), 'https://admin.example');
          assert.match(preflight.headers.get('access-control-allow-methods') ?? '', /PATCH/);
          assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /Authorization/i);
          assert.equal(preflight.headers.get('access-control-allow-credentials'), null);

          const read = await cors.request('GET', '/api/products', { headers: { origin: 'https://app.example' } });
          assert.equal(read.headers.get('access-control-allow-origin'), 'https://app.example');
          assert.match(read.headers.get('access-control-expose-headers') ?? '', /RateLimit-Remaining/);
          assert.match(read.headers.get('vary') ?? '', /Origin/i);

          const foreign = await cors.request('GET', '/api/products', { headers: { origin: 'https://evil.example' } });
          assert.equal(foreign.headers.get('access-control-allow-origin'), null);

          assert.equal((await cors.request('GET', '/api/no-such-thing')).status, 404);
          const wrongMethod = await cors.request('DELETE', '/api/products');
          assert.equal(wrongMethod.status, 405);
          assert.doesNotMatch(wrongMethod.headers.get('allow') ?? '', /OPTIONS/);
        } finally {
          await cors.close();
        }
      });
    });

    describe('limits', () => {
      it('answers 414 URI_TOO_LONG in the error envelope for a URL over 8 KiB', async () => {
        const long = await t.request('GET', `/api/products?search=${'a'.repeat(8200)}`);
        assert.equal(long.status, 414);
        assert.equal(long.body.error.code, 'URI_TOO_LONG');
        const longGraphQL = await t.request('GET', `/graphql?query=${'a'.repeat(8200)}`);
        assert.equal(longGraphQL.status, 414);
        const fits = await t.request('GET', `/api/products?search=${'a'.repeat(8000)}`);
        assert.equal(fits.status, 200);
      });

      it('answers 413 PAYLOAD_TOO_LARGE for a body over 1 MiB, on REST and GraphQL', async () => {
        const big = JSON.stringify({ name: 'x'.repeat(1024 * 1024), email: 'big@example.com' });
        const rest = await t.request('POST', '/api/users', {
          raw: big,
          headers: { 'content-type': 'application/json' },
        });
        assert.equal(rest.status, 413);
        assert.equal(rest.body.error.code, 'PAYLOAD_TOO_LARGE');
        const graphql = await t.request('POST', '/graphql', {
          raw: JSON.stringify({ query: `{ __typename }${' '.repeat(1024 * 1024)}` }),
          headers: { 'content-type': 'application/json' },
        });
        assert.equal(graphql.status, 413);
      });

      it('closes a connection whose headers never finish (slowloris) after the headers timeout', async () => {
        const { response, closedAfterMs } = await rawExchange(
          t.url,
          'GET /api/products HTTP/1.1\r\nHost: localhost\r\nX-Slow: 1\r\n',
          6000,
        );
        assert.ok(closedAfterMs >= 900, `closed after ${Math.round(closedAfterMs)} ms`);
        assert.ok(closedAfterMs < 4000, `closed after ${Math.round(closedAfterMs)} ms`);
        assert.match(response, /^(HTTP\/1\.1 408|$)/);
      });

      it('ends a request whose body never finishes after the request timeout', async () => {
        const head =
          'POST /api/users HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":';
        const { closedAfterMs } = await rawExchange(t.url, head, 8000);
        assert.ok(closedAfterMs >= 1500 && closedAfterMs < 5000, `closed after ${Math.round(closedAfterMs)} ms`);
      });
    });

    describe('outbound requests (SSRF)', () => {
      it('never fetches a URL a client supplies (a product image is stored, not fetched)', async () => {
        let hits = 0;
        const target = createServer((_request, response) => {
          hits += 1;
          response.end('internal secret');
        });
        target.listen(0, '127.0.0.1');
        await once(target, 'listening');
        try {
          const image = `http://127.0.0.1:${(target.address() as AddressInfo).port}/internal/metadata`;
          const created = await t.request('POST', '/api/products', {
            token: t.adminToken,
            body: { name: 'SSRF probe', category: 'probe', price: 1, stock: 1, image },
          });
          assert.equal(created.status, 201, created.text);
          const read = await t.request('GET', `/api/products/${created.body.id}`);
          assert.equal(read.body.image, image);
          await new Promise((resolve) => setTimeout(resolve, 200));
          assert.equal(hits, 0);
          assert.doesNotMatch(read.text, /internal secret/);
        } finally {
          target.close();
        }
      });
    });

    describe('errors reveal no internals', () => {
      it('masks a database failure as 500 INTERNAL without stack or SQL, on REST and GraphQL', async () => {
        const broken = await startTestServer(dialect, SECURITY_TEST_ENV);
        try {
          await sql`alter table posts rename to posts_gone`.execute(broken.server.db);
          const rest = await broken.request('GET', '/api/posts', { token: broken.adminToken });
          assert.equal(rest.status, 500);
          assert.deepEqual(rest.body, { error: { code: 'INTERNAL', message: 'Internal server error' } });
          const graphql = await broken.request('POST', '/graphql', {
            token: broken.adminToken,
            body: { query: '{ posts { id title } }' },
          });
          assert.equal(graphql.status, 200);
          assert.equal(graphql.body.errors[0].extensions.code, 'INTERNAL_SERVER_ERROR');
          assert.doesNotMatch(graphql.text, LEAKS);
          assert.doesNotMatch(rest.text, LEAKS);
        } finally {
          await broken.close();
        }
      });

      it('answers malformed input without echoing parser internals', async () => {
        const responses = [
          await t.request('POST', '/api/users', {
            raw: '{"name": "x", "email": ',
            headers: { 'content-type': 'application/json' },
          }),
          await t.request('POST', '/api/users', {
            raw: '{"__proto__": {"admin": true}}',
            headers: { 'content-type': 'application/json' },
          }),
          await t.request('GET', '/api/products?limit=1e309&page=-0x10'),
          await t.request('POST', '/graphql', { body: { query: '{ users { id ' } }),
        ];
        for (const res of responses) {
          assert.ok(res.status < 500, `${res.status} ${res.text}`);
          assert.doesNotMatch(res.text, LEAKS);
        }
      });
    });
  });
}
