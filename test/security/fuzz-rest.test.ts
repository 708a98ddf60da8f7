import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { DIALECTS } from '../support/dialects.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { anyBody, authorization, headerValue, pathSegment, queryString } from './fuzz-arbitraries.test-support.ts';
import { createChecker, FUZZ_ENV, FUZZ_SEED, runs, send } from './fuzz.test-support.ts';

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'text/plain',
  'application/x-www-form-urlencoded',
  'application/json; charset=latin1',
  'image/png',
  'multipart/form-data; boundary=x',
];

for (const dialect of DIALECTS) {
  describe(`REST fuzzing (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let checker: ReturnType<typeof createChecker>;
    let tokens: (string | undefined)[];
    let ids: { user: number; product: number; post: number; comment: number; order: number };

    before(async () => {
      t = await startTestServer(dialect, FUZZ_ENV);
      const owner = await t.createUser();
      const product = await t.request('POST', '/api/products', {
        token: t.adminToken,
        body: { name: 'Fuzz', category: 'fuzz', price: 5, stock: 1000000 },
      });
      const post = await t.request('POST', `/api/users/${owner.id}/posts`, {
        token: owner.token,
        body: { title: 'Fuzz', content: 'Fuzz' },
      });
      const comment = await t.request('POST', `/api/posts/${post.body.id}/comments`, {
        token: owner.token,
        body: { text: 'Fuzz' },
      });
      const order = await t.request('POST', '/api/orders', {
        token: owner.token,
        body: { items: [{ productId: product.body.id, quantity: 1 }] },
      });
      ids = {
        user: owner.id,
        product: product.body.id,
        post: post.body.id,
        comment: comment.body.id,
        order: order.body.id,
      };
      tokens = [undefined, owner.token, t.adminToken];
      checker = createChecker(t);
      await checker.reset();
    });
    after(() => t?.close());

    const auth = (token: string | undefined): Record<string, string> =>
      token ? { authorization: `Bearer ${token}` } : {};

    it('never fails, hangs or changes data on generated request bodies', async () => {
      const targets = [
        ['POST', () => '/api/users'],
        ['PUT', () => `/api/users/${ids.user}`],
        ['PATCH', () => `/api/users/${ids.user}`],
        ['POST', () => `/api/users/${ids.user}/posts`],
        ['POST', () => `/api/posts/${ids.post}/comments`],
        ['POST', () => '/api/orders'],
        ['POST', () => `/api/orders/${ids.order}/cancel`],
        ['POST', () => '/api/products'],
        ['PATCH', () => `/api/products/${ids.product}`],
        ['PUT', () => `/api/products/${ids.product}`],
        ['POST', () => '/api/auth/token'],
        ['POST', () => '/api/reports/generate'],
        ['PUT', () => `/api/users/${ids.user}/avatar`],
      ] as const;
      await fc.assert(
        fc.asyncProperty(
          fc.nat(targets.length - 1),
          fc.nat(2),
          anyBody,
          fc.constantFrom(...CONTENT_TYPES),
          async (target, who, body, contentType) => {
            const [method, path] = targets[target]!;
            const request = {
              method,
              path: path(),
              headers: { 'content-type': contentType, ...auth(tokens[who]) },
              body,
            };
            await checker.check(request, await send(t, request));
          },
        ),
        { seed: FUZZ_SEED, numRuns: runs(200) },
      );
    });

    it('never fails, hangs or changes data on generated query strings', async () => {
      const paths = () => [
        '/api/products',
        '/api/users',
        '/api/posts',
        '/api/orders',
        `/api/users/${ids.user}/posts`,
        `/api/posts/${ids.post}/comments`,
        `/api/comments/${ids.comment}/likes`,
        `/api/users/${ids.user}`,
        `/api/products/${ids.product}`,
      ];
      await fc.assert(
        fc.asyncProperty(fc.nat(8), fc.nat(2), queryString, async (which, who, query) => {
          const request = { method: 'GET', path: `${paths()[which]}?${query}`, headers: auth(tokens[who]) };
          await checker.check(request, await send(t, request));
        }),
        { seed: FUZZ_SEED, numRuns: runs(150) },
      );
    });

    it('never fails, hangs or changes data on generated path segments', async () => {
      const templates = [
        (a: string) => `/api/users/${a}`,
        (a: string) => `/api/products/${a}`,
        (a: string, b: string) => `/api/posts/${a}/comments/${b}`,
        (a: string) => `/api/orders/${a}/pay`,
        (a: string) => `/api/comments/${a}/likes`,
        (a: string, b: string) => `/api/users/${a}/posts/${b}`,
        (a: string) => `/api/v${a}/products`,
        (a: string) => `/${a}`,
      ];
      await fc.assert(
        fc.asyncProperty(
          fc.nat(templates.length - 1),
          fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE'),
          fc.nat(2),
          pathSegment,
          pathSegment,
          async (which, method, who, a, b) => {
            const request = {
              method,
              path: templates[which]!(a, b),
              headers: { ...auth(tokens[who]), 'content-type': 'application/json' },
              body: method === 'GET' || method === 'DELETE' ? undefined : '{}',
            };
            await checker.check(request, await send(t, request));
          },
        ),
        { seed: FUZZ_SEED, numRuns: runs(200) },
      );
    });

    it('never fails, hangs or changes data on generated headers', async () => {
      const headerNames = [
        'accept',
        'api-version',
        'if-match',
        'if-none-match',
        'idempotency-key',
        'x-request-id',
        'content-type',
        'x-forwarded-for',
        'origin',
      ];
      const targets = () =>
        [
          ['GET', '/api/products'],
          ['GET', `/api/users/${ids.user}`],
          ['PATCH', `/api/users/${ids.user}`],
          ['POST', '/api/orders'],
          ['DELETE', `/api/products/${ids.product}`],
          ['GET', '/api/v2/products'],
        ] as const;
      await fc.assert(
        fc.asyncProperty(
          fc.nat(5),
          authorization,
          fc.dictionary(
            fc.constantFrom(...headerNames),
            fc.oneof(
              headerValue,
              fc.constantFrom(
                'application/vnd.content.v9+json',
                'application/vnd.content.v+json',
                '*',
                'W/"x", "y"',
                '999999999999999999999',
              ),
            ),
          ),
          async (which, authHeader, headers) => {
            const [method, path] = targets()[which]!;
            const request = {
              method,
              path,
              headers: { ...headers, ...(authHeader ? { authorization: authHeader } : {}) },
              body: method === 'GET' || method === 'DELETE' ? undefined : '{"name":"H"}',
            };
            await checker.check(request, await send(t, request));
          },
        ),
        { seed: FUZZ_SEED, numRuns: runs(150) },
      );
    });
  });
}
