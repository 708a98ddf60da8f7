import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { checkFetched } from '../../../test/support/checked-answer.ts';
import { DATABASE_INDEPENDENT } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';
import { FRONT_DOOR_PATHS, prefersHtml } from './front-door.ts';

const PACKAGE = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
  name: string;
  version: string;
};
const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

describe('which Accept prefers HTML', () => {
  it('is a browser’s, or text/html alone; not curl’s or fetch’s */*, JSON, or none', () => {
    assert.equal(prefersHtml(BROWSER), true);
    assert.equal(prefersHtml('text/html'), true);
    assert.equal(prefersHtml('application/json;q=0.5, text/*'), true);
    assert.equal(prefersHtml('*/*'), false);
    assert.equal(prefersHtml('application/json'), false);
    assert.equal(prefersHtml('text/html;q=0.5, application/json'), false);
    assert.equal(prefersHtml(undefined), false);
  });
});

for (const dialect of DATABASE_INDEPENDENT) {
  describe(`the front door (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(dialect);
    });
    after(() => t?.close());

    const get = async (path: string, accept?: string) =>
      checkFetched('GET', await fetch(`${t.url}${path}`, { redirect: 'manual', headers: accept ? { accept } : {} }));

    it('answers GET / with the name, version and links to where everything is, each of which answers', async () => {
      const res = await get('/', '*/*');
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
      assert.equal(res.body.name, PACKAGE.name);
      assert.equal(res.body.version, PACKAGE.version);
      assert.deepEqual(res.body._links, {
        api: { href: '/api/v2' },
        docs: { href: '/docs' },
        openapi: { href: '/api/v2/openapi.json' },
        graphql: { href: '/graphql' },
        graphiql: { href: '/graphiql' },
        health: { href: '/healthz' },
      });
      for (const [name, { href }] of Object.entries(res.body._links as Record<string, { href: string }>)) {
        const target = href === '/graphql' ? '/graphql?query=%7B__typename%7D' : href;
        // Followed as a browser would (`/docs` moves to `/docs/`).
        assert.equal((await t.request('GET', target)).status, 200, `${name} → ${href}`);
      }
      // An API answer's hardening and caching, and a cache told the answer depends on Accept.
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
      assert.match(res.headers.get('content-security-policy') ?? '', /default-src 'none'/);
      assert.ok(res.headers.get('etag'));
      assert.match(res.headers.get('vary') ?? '', /accept/i);
    });

    it('sends a browser to /docs with a 302', async () => {
      const res = await get('/', BROWSER);
      assert.equal(res.status, 302);
      assert.equal(res.headers.get('location'), '/docs');
    });

    it('answers the bare /api, /api/v1 and /api/v2 with the same index instead of a 404', async () => {
      const index = (await get('/')).body;
      for (const path of FRONT_DOOR_PATHS.filter((path) => path !== '/')) {
        const res = await get(path);
        assert.equal(res.status, 200, path);
        assert.deepEqual(res.body, index, path);
        const browser = await get(path, BROWSER);
        assert.equal(browser.status, 302, path);
        assert.equal(browser.headers.get('location'), '/docs', path);
      }
    });

    it('leaves GraphiQL out of the index where it is not served', async () => {
      const off = await startTestServer(dialect, { GRAPHIQL: 'false' });
      try {
        const res = await checkFetched('GET', await fetch(`${off.url}/`));
        assert.equal(res.status, 200);
        assert.equal(res.body._links.graphiql, undefined);
        assert.equal((await fetch(`${off.url}/graphiql`)).status, 404);
      } finally {
        await off.close();
      }
    });
  });
}
