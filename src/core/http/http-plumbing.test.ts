import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Fastify from 'fastify';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';
import { registerAccessControl } from '../access/access.ts';
import { AppError } from '../errors/app-error.ts';
import { toAppError } from './error-envelope.ts';
import './fastify-types.ts';

for (const dialect of DIALECTS) {
  describe(`HTTP plumbing (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(dialect);
    });
    after(() => t?.close());

    it('answers 404 NOT_FOUND in the envelope for an unknown route', async () => {
      const res = await t.request('GET', '/api/nothing-here');
      assert.equal(res.status, 404);
      assert.equal(res.body.error.code, 'NOT_FOUND');
      assert.equal(typeof res.body.error.message, 'string');
    });

    it('answers 405 METHOD_NOT_ALLOWED with Allow for a known path and a wrong method', async () => {
      const res = await t.request('PATCH', '/api/users');
      assert.equal(res.status, 405);
      assert.equal(res.body.error.code, 'METHOD_NOT_ALLOWED');
      assert.equal(res.headers.get('allow'), 'GET, HEAD, POST');
      const item = await t.request('POST', '/api/users/5', { body: {} });
      assert.equal(item.status, 405);
      assert.match(item.headers.get('allow') ?? '', /DELETE/);
    });

    it('echoes a safe X-Request-Id and makes one up otherwise', async () => {
      const echoed = await t.request('GET', '/healthz', { headers: { 'x-request-id': 'trace-abc-123' } });
      assert.equal(echoed.headers.get('x-request-id'), 'trace-abc-123');
      const generated = await t.request('GET', '/healthz', { headers: { 'x-request-id': 'bad id with spaces' } });
      assert.match(generated.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
      const error = await t.request('GET', '/api/users/1');
      assert.ok(error.headers.get('x-request-id'));
    });

    it('serves /healthz and /readyz without a token and uncached', async () => {
      const health = await t.request('GET', '/healthz');
      assert.equal(health.status, 200);
      assert.deepEqual(health.body, { status: 'ok' });
      const ready = await t.request('GET', '/readyz');
      assert.equal(ready.status, 200);
      assert.equal(ready.headers.get('cache-control'), 'no-store');
    });

    it('exposes Prometheus metrics with request counts and a latency histogram by route pattern', async () => {
      await t.request('GET', '/api/users/1', { token: t.adminToken });
      const res = await t.request('GET', '/metrics');
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /text\/plain/);
      assert.match(
        res.text,
        /http_requests_total\{method="GET",route="\/api\/users\/:userId",version="1",status_code="200"\} \d+/,
      );
      assert.match(
        res.text,
        /http_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/api\/users\/:userId"/,
      );
      assert.match(res.text, /process_resident_memory_bytes/);
    });

    it('accepts an empty JSON body on a bodiless action', async () => {
      const { id } = await t.createUser();
      const res = await t.request('POST', `/api/users/${id}/verify-email`, {
        token: t.adminToken,
        raw: '',
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(res.status, 200);
    });

    it('answers 503 in the envelope from /readyz when the database is gone', async () => {
      const other = await startTestServer(dialect);
      try {
        await other.server.db.destroy();
        const res = await other.request('GET', '/readyz');
        assert.equal(res.status, 503);
        assert.equal(res.body.error.code, 'SERVICE_UNAVAILABLE');
      } finally {
        await other.server.app.http.close();
      }
    });
  });
}

describe('error mapping', () => {
  it('masks unexpected errors as 500 INTERNAL without their message', () => {
    const error = toAppError(new Error('relation "users" does not exist: SELECT password_hash FROM users'));
    assert.equal(error.status, 500);
    assert.equal(error.code, 'INTERNAL');
    assert.doesNotMatch(error.message, /SELECT|users/);
  });

  it('keeps application errors as they are', () => {
    const original = AppError.conflict('taken');
    assert.equal(toAppError(original), original);
  });

  it('maps schema validation of path parameters to 404 and of bodies to 422 with details', () => {
    const params = Object.assign(new Error('bad'), { validation: [], validationContext: 'params' });
    assert.equal(toAppError(params).status, 404);
    const body = Object.assign(new Error('bad'), {
      validation: [
        { instancePath: '/name', keyword: 'minLength', params: {}, message: 'must NOT have fewer than 1 characters' },
      ],
      validationContext: 'body',
    });
    const mapped = toAppError(body);
    assert.equal(mapped.status, 422);
    assert.deepEqual(mapped.details, [{ field: 'name', message: 'must NOT have fewer than 1 characters' }]);
  });
});

describe('access declarations', () => {
  it('refuses to register a route that does not declare who may call it', async () => {
    const app = Fastify();
    registerAccessControl(
      app,
      { verify: async () => ({ userId: 1, role: 'user' }) },
      { current: async (principal) => principal },
    );
    assert.throws(() => app.get('/undeclared', async () => 'x'), /does not declare config.access/);
    app.get('/declared', { config: { access: 'public' } }, async () => 'x');
    await app.close();
  });
});
