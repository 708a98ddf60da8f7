import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';
import { chooseVersion, successorPath } from './versioning.ts';

const SUNSET = 'Sun, 21 Nov 2027 00:00:00 GMT';

describe('version selection (unit)', () => {
  const choose = (url: string, headers: Record<string, string> = {}) => chooseVersion(url, headers);

  it('ignores paths outside /api', () => {
    assert.equal(choose('/healthz'), null);
    assert.equal(choose('/apiary'), null);
    assert.equal(choose('/api?version=2')?.version, 2);
  });

  it('takes the version from the path prefix first, whatever the other signals say', () => {
    assert.deepEqual(choose('/api/v2/users', { 'api-version': '1' }), {
      version: 2,
      prefix: '/api/v2',
      mediaType: null,
    });
    assert.deepEqual(choose('/api/v1/users?version=2', { accept: 'application/vnd.content.v2+json' }), {
      version: 1,
      prefix: '/api/v1',
      mediaType: null,
    });
  });

  it('on plain /api: API-Version, then Accept, then ?version=, else 1', () => {
    const accept2 = { accept: 'application/vnd.content.v2+json' };
    assert.equal(
      choose('/api/users?version=1', { 'api-version': '2', accept: 'application/vnd.content.v1+json' })?.version,
      2,
    );
    assert.equal(choose('/api/users?version=1', accept2)?.version, 2);
    assert.equal(choose('/api/users?version=2')?.version, 2);
    assert.equal(choose('/api/users')?.version, 1);
    assert.equal(choose('/api/users', { accept: 'application/json' })?.version, 1);
  });

  it('reads the vendor media type anywhere in an Accept list, ignoring parameters and case', () => {
    const choice = choose('/api/users', { accept: 'text/html;q=0.5, Application/Vnd.Content.V2+JSON;q=0.9' });
    assert.deepEqual(choice, { version: 2, prefix: '/api', mediaType: 'application/vnd.content.v2+json' });
  });

  it('refuses unknown versions: 400 from the path, header and query, 406 from Accept', () => {
    const statusOf = (url: string, headers: Record<string, string> = {}) => {
      try {
        choose(url, headers);
        return 200;
      } catch (error) {
        return (error as { status: number }).status;
      }
    };
    assert.equal(statusOf('/api/v3/users'), 400);
    assert.equal(statusOf('/api/users', { 'api-version': '3' }), 400);
    assert.equal(statusOf('/api/users', { 'api-version': 'two' }), 400);
    assert.equal(statusOf('/api/users', { accept: 'application/vnd.content.v9+json' }), 406);
    assert.equal(statusOf('/api/users?version=0'), 400);
    assert.equal(statusOf('/api/users?version=1.5'), 400);
  });

  it('names the same path under /api/v2 as the successor', () => {
    assert.equal(successorPath('/api/users/7?fields=name'), '/api/v2/users/7');
    assert.equal(successorPath('/api/v1/users/7/posts'), '/api/v2/users/7/posts');
    assert.equal(successorPath('/api'), '/api/v2');
  });
});

for (const dialect of DIALECTS) {
  describe(`REST versioning over HTTP (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let user: { id: number; token: string };
    before(async () => {
      t = await startTestServer(dialect);
      user = await t.createUser();
    });
    after(() => t?.close());

    const get = (path: string, headers: Record<string, string> = {}) =>
      t.request('GET', path, { token: user.token, headers });

    it('serves the same route table under /api, /api/v1 and /api/v2', async () => {
      for (const prefix of ['/api', '/api/v1', '/api/v2']) {
        const res = await get(`${prefix}/users/${user.id}`);
        assert.equal(res.status, 200, prefix);
        assert.equal(res.body.id, user.id);
      }
    });

    it('says API-Version on every response, by each selection path', async () => {
      const cases: [string, Record<string, string>, string][] = [
        ['/api/v1/users', {}, '1'],
        ['/api/v2/users', {}, '2'],
        ['/api/users', { 'API-Version': '2' }, '2'],
        ['/api/users', { Accept: 'application/vnd.content.v2+json' }, '2'],
        ['/api/users?version=2', {}, '2'],
        ['/api/users', {}, '1'],
        ['/api/users', { 'API-Version': '1', Accept: 'application/vnd.content.v2+json' }, '1'],
        ['/api/users?version=1', { Accept: 'application/vnd.content.v2+json' }, '2'],
        ['/api/v2/users', { 'API-Version': '1' }, '2'],
      ];
      for (const [path, headers, version] of cases) {
        const res = await get(path, headers);
        assert.equal(res.status, 200, `${path} ${JSON.stringify(headers)}`);
        assert.equal(res.headers.get('api-version'), version, `${path} ${JSON.stringify(headers)}`);
      }
    });

    it('carries Deprecation, Sunset and a successor Link on every v1 response, errors and plain /api included', async () => {
      const responses = [
        await get(`/api/v1/users/${user.id}`),
        await get(`/api/users/${user.id}`),
        await get('/api/v1/users/999999'),
        await t.request('GET', '/api/v1/users'),
        await get('/api/v1/no-such-route'),
      ];
      assert.deepEqual(
        responses.map((res) => res.status),
        [200, 200, 404, 401, 404],
      );
      for (const res of responses) {
        assert.equal(res.headers.get('api-version'), '1');
        assert.equal(res.headers.get('deprecation'), 'true');
        assert.equal(res.headers.get('sunset'), SUNSET);
        assert.match(res.headers.get('link') ?? '', /^<\/api\/v2\/[^>]+>; rel="successor-version"$/);
      }
      assert.equal(responses[0]!.headers.get('link'), `</api/v2/users/${user.id}>; rel="successor-version"`);
      assert.equal(responses[1]!.headers.get('link'), `</api/v2/users/${user.id}>; rel="successor-version"`);
      assert.equal(responses[4]!.headers.get('link'), '</api/v2/no-such-route>; rel="successor-version"');
    });

    it('sends no deprecation signal on v2, however v2 was chosen', async () => {
      for (const [path, headers] of [
        [`/api/v2/users/${user.id}`, {}],
        [`/api/users/${user.id}`, { 'API-Version': '2' }],
        [`/api/users/${user.id}`, { Accept: 'application/vnd.content.v2+json' }],
        [`/api/users/${user.id}?version=2`, {}],
        ['/api/v2/users/999999', {}],
      ] as const) {
        const res = await get(path, headers);
        assert.equal(res.headers.get('api-version'), '2');
        assert.equal(res.headers.get('deprecation'), null);
        assert.equal(res.headers.get('sunset'), null);
        assert.equal(res.headers.get('link'), null);
      }
    });

    it('echoes the vendor media type in Content-Type and still answers JSON', async () => {
      const res = await get(`/api/users/${user.id}`, { Accept: 'application/vnd.content.v2+json' });
      assert.equal(res.headers.get('content-type'), 'application/vnd.content.v2+json; charset=utf-8');
      assert.equal(res.body.id, user.id);
      const v1 = await get(`/api/users/${user.id}`, { Accept: 'application/vnd.content.v1+json' });
      assert.equal(v1.headers.get('content-type'), 'application/vnd.content.v1+json; charset=utf-8');
      assert.equal(v1.headers.get('api-version'), '1');
      const plain = await get(`/api/v2/users/${user.id}`);
      assert.match(plain.headers.get('content-type') ?? '', /^application\/json/);
    });

    it('does not echo a vendor media type that names another version than the one served', async () => {
      const res = await get(`/api/users/${user.id}`, { 'API-Version': '2', Accept: 'application/vnd.content.v1+json' });
      assert.equal(res.headers.get('api-version'), '2');
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    });

    it('accepts request bodies sent as the vendor media type', async () => {
      const res = await t.request('PATCH', `/api/users/${user.id}`, {
        token: user.token,
        raw: JSON.stringify({ name: 'Vendor Typed' }),
        headers: { 'content-type': 'application/vnd.content.v2+json', accept: 'application/vnd.content.v2+json' },
      });
      assert.equal(res.status, 200);
      assert.equal(res.body.name, 'Vendor Typed');
      assert.equal(res.headers.get('content-type'), 'application/vnd.content.v2+json; charset=utf-8');
    });

    it('answers 400 UNSUPPORTED_VERSION for an unknown version, 406 NOT_ACCEPTABLE from Accept, in the envelope', async () => {
      const cases: [string, Record<string, string>, number, string][] = [
        ['/api/v3/users', {}, 400, 'UNSUPPORTED_VERSION'],
        ['/api/users', { 'API-Version': '3' }, 400, 'UNSUPPORTED_VERSION'],
        ['/api/users?version=7', {}, 400, 'UNSUPPORTED_VERSION'],
        ['/api/users', { Accept: 'application/vnd.content.v3+json' }, 406, 'NOT_ACCEPTABLE'],
      ];
      for (const [path, headers, status, code] of cases) {
        const res = await get(path, headers);
        assert.equal(res.status, status, path);
        assert.equal(res.body.error.code, code);
        assert.equal(typeof res.body.error.message, 'string');
        assert.equal(res.headers.get('deprecation'), null);
      }
    });

    it('builds links and Location with the prefix the request used', async () => {
      for (const prefix of ['/api', '/api/v1', '/api/v2']) {
        const res = await get(`${prefix}/users/${user.id}`);
        assert.equal(res.body._links.self.href, `${prefix}/users/${user.id}`);
        const created = await t.request('POST', `${prefix}/users`, {
          body: { name: 'Prefixed', email: `prefixed-${prefix.replaceAll('/', '-')}-${Date.now()}@example.com` },
        });
        assert.equal(created.status, 201);
        assert.equal(created.headers.get('location'), `${prefix}/users/${created.body.id}`);
      }
    });

    it('leaves non-REST paths unversioned', async () => {
      const res = await t.request('GET', '/healthz');
      assert.equal(res.headers.get('api-version'), null);
      assert.equal(res.headers.get('deprecation'), null);
    });
  });
}
