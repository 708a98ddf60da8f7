import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { contractChecker, ContractViolation, type ObservedExchange } from '../support/openapi-validator.ts';

/**
 * The validator `request()` of test/support/test-server.ts runs on every REST response: it must
 * fail on what the document does not say (these exchanges are made up; every real one the suites
 * see passes it).
 */
function exchange(
  overrides: Partial<Omit<ObservedExchange, 'headers'>> & { headers?: Record<string, string> },
): ObservedExchange {
  const user = {
    id: 1,
    name: 'Ada',
    email: 'ada@example.com',
    age: null,
    role: 'user',
    status: 'active',
    emailVerified: false,
    createdAt: '2026-11-21T10:00:00.000Z',
    updatedAt: '2026-11-21T10:00:00.000Z',
    _links: {
      self: { href: '/api/v2/users/1' },
      posts: { href: '/api/v2/users/1/posts' },
      avatar: { href: '/api/v2/users/1/avatar' },
      update: { href: '/api/v2/users/1', method: 'PATCH' },
      delete: { href: '/api/v2/users/1', method: 'DELETE' },
    },
  };
  const headers = new Headers({
    'api-version': '2',
    'content-type': 'application/json; charset=utf-8',
    etag: '"abc"',
    'cache-control': 'private, no-cache',
    ...overrides.headers,
  });
  const body = 'body' in overrides ? overrides.body : user;
  return {
    method: 'GET',
    path: '/api/v2/users/1',
    status: 200,
    text: JSON.stringify(body) ?? '',
    ...overrides,
    body,
    headers,
  };
}

describe('OpenAPI response validation (test/support/openapi-validator.ts)', () => {
  it('passes a response the v2 document describes', async () => {
    const checker = await contractChecker();
    assert.deepEqual(checker.violations(exchange({})), []);
  });

  it('fails on a status the operation does not list', async () => {
    const checker = await contractChecker();
    const violations = checker.violations(exchange({ status: 418 })) ?? [];
    assert.match(violations.join('\n'), /status 418 is not listed for GET \/users\/\{userId\}/);
  });

  it('fails on a media type the response does not list', async () => {
    const checker = await contractChecker();
    const violations = checker.violations(exchange({ headers: { 'content-type': 'text/html; charset=utf-8' } })) ?? [];
    assert.match(violations.join('\n'), /media type "text\/html" is not listed/);
    const avatar =
      checker.violations(
        exchange({ path: '/api/v2/users/1/avatar', headers: { 'content-type': 'application/json' } }),
      ) ?? [];
    assert.match(avatar.join('\n'), /media type "application\/json" is not listed \(image\/svg\+xml/);
  });

  it('fails on a body that does not match the schema, and on a missing required header', async () => {
    const checker = await contractChecker();
    const body = checker.violations(exchange({ body: { id: 'one' } })) ?? [];
    assert.match(body.join('\n'), /body: \/id must be integer/);
    assert.match(body.join('\n'), /must have required property 'name'/);
    const headers = checker.violations(exchange({ headers: { 'api-version': '1' } })) ?? [];
    assert.match(headers.join('\n'), /required header Deprecation is missing/);
    const noVersion = new Headers({ 'content-type': 'application/json' });
    assert.match((checker.violations({ ...exchange({}), headers: noVersion }) ?? []).join('\n'), /API-Version null/);
  });

  it('fails on a success for an operation the document lacks, and on an error outside the envelope', async () => {
    const checker = await contractChecker();
    assert.match(
      (checker.violations(exchange({ method: 'PATCH', path: '/api/v2/users' })) ?? []).join('\n'),
      /operation the document does not have/,
    );
    const notFound = exchange({ path: '/api/v2/nothing', status: 404, body: { message: 'not found' } });
    assert.match(
      (checker.violations(notFound) ?? []).join('\n'),
      /error body: \(root\) must have required property 'error'/,
    );
  });

  it('names an operation only where the service routes one: /api, /api/v1 and /api/v2, decoded as its router does', async () => {
    const checker = await contractChecker();
    const error = (path: string, status: number, method = 'GET') =>
      exchange({
        method,
        path,
        status,
        body: { error: { code: 'NOT_FOUND', message: `Route ${method} ${path} not found` } },
      });
    // Not a version prefix: an unknown route, whatever follows.
    assert.deepEqual(checker.violations(error('/api/vNaN/products', 404)), []);
    assert.deepEqual(checker.violations(error('/api/v/products', 404, 'PATCH')), []);
    assert.deepEqual(checker.violations(error('/api/v%F2%AE%BA%AB/products', 404)), []);
    assert.match(
      (checker.violations(exchange({ path: '/api/v3/users/1' })) ?? []).join('\n'),
      /operation the document does not have/,
    );
    // A real prefix names the operation, also percent-encoded, and its statuses are the document's.
    assert.match(
      (checker.violations(error('/api/v2/products', 404)) ?? []).join('\n'),
      /status 404 is not listed for GET \/products/,
    );
    assert.deepEqual(checker.violations(exchange({ path: '/api/%75sers/1' })), []);
    // A parameter over the router's 100 characters is routed nowhere.
    const long = `/api/v2/users/${'1'.repeat(101)}`;
    assert.deepEqual(checker.violations(error(long, 414)), []);
    assert.match(
      (checker.violations(exchange({ path: long })) ?? []).join('\n'),
      /operation the document does not have/,
    );
  });

  it('leaves non-REST paths alone and reports violations as one error', async () => {
    const checker = await contractChecker();
    assert.equal(checker.violations(exchange({ path: '/graphql', status: 418 })), null);
    assert.equal(checker.violations(exchange({ path: '/api/v2/openapi.json', status: 418 })), null);
    assert.match(new ContractViolation(['a', 'b']).message, /does not match the OpenAPI document:\n {2}a\n {2}b/);
  });
});
