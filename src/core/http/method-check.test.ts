import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DATABASE_INDEPENDENT } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

/** Issue 75 (Schemathesis A2, A3): the method and the path decide before the token or the body does. */
for (const dialect of DATABASE_INDEPENDENT) {
  describe(`methods a path does not serve (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(dialect);
    });
    after(() => t?.close());

    const raw = (method: string, path: string, init: RequestInit = {}) =>
      fetch(`${t.url}${path}`, { method, ...init }).then(async (res) => ({
        status: res.status,
        allow: res.headers.get('allow'),
        body: (await res.json()) as { error: { code: string } },
      }));

    it('answers a method a path does not allow with 405 and Allow before reading its body, whatever the body is', async () => {
      for (const init of [
        {},
        { body: '', headers: { 'content-type': 'application/json' } },
        { body: '{"not json', headers: { 'content-type': 'application/json' } },
        { body: 'x', headers: { 'content-type': 'text/plain' } },
      ]) {
        const query = await raw('QUERY', '/api/v2/orders/1', init);
        assert.equal(query.status, 405, JSON.stringify(init));
        assert.equal(query.allow, 'GET, HEAD');
        assert.equal(query.body.error.code, 'METHOD_NOT_ALLOWED');
        const post = await raw('POST', '/api/v2/users/1/avatar/nothing', init);
        assert.equal(post.status, 404, JSON.stringify(init));
      }
      const put = await raw('PUT', '/api/v2/orders/1', { body: '{', headers: { 'content-type': 'application/json' } });
      assert.equal(put.status, 405);
    });

    it('lists in Allow only the methods that answer that very path: POST for /reports/generate, whose GET is 405', async () => {
      const options = await raw('OPTIONS', '/api/v2/reports/generate');
      assert.equal(options.status, 405);
      assert.equal(options.allow, 'POST');
      for (const token of [undefined, t.adminToken]) {
        const get = await raw(
          'GET',
          '/api/v2/reports/generate',
          token ? { headers: { authorization: `Bearer ${token}` } } : {},
        );
        assert.equal(get.status, 405, String(token));
        assert.equal(get.allow, 'POST');
      }
      // An id path that is no id names nothing: 404, before the token is looked at.
      const notAnId = await raw('GET', '/api/v2/orders/abc');
      assert.equal(notAnId.status, 404);
      assert.equal(notAnId.body.error.code, 'NOT_FOUND');
      // The id route itself is untouched.
      const report = await raw('GET', '/api/v2/reports/999999', {
        headers: { authorization: `Bearer ${t.adminToken}` },
      });
      assert.equal(report.status, 404);
    });

    it('says in Allow, for every path of the v2 document, exactly the methods the document gives it (and HEAD with GET)', async () => {
      const document = (await (await fetch(`${t.url}/api/v2/openapi.json`)).json()) as {
        paths: Record<string, Record<string, unknown>>;
      };
      const METHODS = ['get', 'head', 'post', 'put', 'patch', 'delete'];
      for (const [template, item] of Object.entries(document.paths)) {
        const path = `/api/v2${template.replace(/\{[^}]+\}/g, '1')}`;
        const documented = Object.keys(item).filter((key) => METHODS.includes(key));
        if (documented.includes('get')) documented.push('head');
        const answer = await raw('OPTIONS', path);
        assert.equal(answer.status, 405, path);
        assert.deepEqual(
          (answer.allow ?? '')
            .split(', ')
            .map((method) => method.toLowerCase())
            .sort(),
          [...new Set(documented)].sort(),
          path,
        );
      }
    });
  });
}
