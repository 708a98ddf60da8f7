import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../test/support/test-server.ts';
import { GRAPHQL_TEST_ENV } from '../../test/support/graphql-test-client.ts';

const version = (name: string) =>
  (JSON.parse(readFileSync(`node_modules/${name}/package.json`, 'utf8')) as { version: string }).version;

/** The files the page names, in the order it names them. */
function filesOf(html: string): string[] {
  return [...html.matchAll(/<(?:script|link rel="stylesheet")[^>]*\s(?:src|href)="([^"]+)"/g)].map(([, url]) => url!);
}

for (const dialect of DIALECTS) {
  describe(`GraphiQL page files (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let files: string[];
    before(async () => {
      t = await startTestServer(dialect, GRAPHQL_TEST_ENV);
      files = filesOf((await t.request('GET', '/graphiql')).text);
    });
    after(() => t?.close());

    it('names React, ReactDOM and GraphiQL by their installed versions, under /graphiql/assets/', () => {
      assert.ok(
        files.every((file) => file.startsWith('/graphiql/assets/')),
        files.join(', '),
      );
      for (const name of [
        `react-${version('react')}.min.js`,
        `react-dom-${version('react-dom')}.min.js`,
        `graphiql-${version('graphiql')}.min.js`,
        `graphiql-${version('graphiql')}.min.css`,
      ]) {
        assert.ok(files.includes(`/graphiql/assets/${name}`), `${name} in ${files.join(', ')}`);
      }
      // React before ReactDOM before GraphiQL before the start script: each UMD build needs the previous globals.
      const scripts = files.filter((file) => file.endsWith('.js'));
      assert.deepEqual(
        scripts.map((file) => file.replace(/^\/graphiql\/assets\/|-[\w.]+\.js$/g, '')),
        ['react', 'react-dom', 'graphiql', 'start'],
      );
    });

    it('serves each file with its type, an ETag and a year-long immutable Cache-Control', async () => {
      for (const file of files) {
        const res = await t.request('GET', file);
        assert.equal(res.status, 200, file);
        assert.match(
          res.headers.get('content-type') ?? '',
          file.endsWith('.js') ? /^text\/javascript/ : /^text\/css/,
          file,
        );
        assert.equal(res.headers.get('cache-control'), 'public, max-age=31536000, immutable', file);
        assert.match(res.headers.get('etag') ?? '', /^"[\w-]+"$/, file);
        assert.ok(res.text.length > 0, file);
        assert.doesNotMatch(res.text, /sourceMappingURL=/, `${file} names no source map that is not served`);
      }
    });

    it('serves the packages’ own builds', async () => {
      const graphiql = await t.request('GET', `/graphiql/assets/graphiql-${version('graphiql')}.min.js`);
      const packaged = readFileSync('node_modules/graphiql/graphiql.min.js', 'utf8');
      assert.equal(graphiql.text, packaged.slice(0, graphiql.text.length));
      assert.ok(graphiql.text.length > packaged.length - 100);
      const react = await t.request('GET', `/graphiql/assets/react-${version('react')}.min.js`);
      assert.match(react.text, /React/);
    });

    it('answers 304 to a matching If-None-Match', async () => {
      const first = await t.request('GET', files[0]!);
      const again = await t.request('GET', files[0]!, { headers: { 'if-none-match': first.headers.get('etag')! } });
      assert.equal(again.status, 304);
      assert.equal(again.text, '');
    });

    it('answers 404 in the error envelope for a file it does not have', async () => {
      for (const path of [
        '/graphiql/assets/react-0.0.1.min.js',
        '/graphiql/assets/..%2Fpackage.json',
        '/graphiql/assets/',
      ]) {
        const res = await t.request('GET', path);
        assert.equal(res.status, 404, path);
        assert.equal(res.body.error.code, 'NOT_FOUND', path);
      }
    });
  });

  describe(`GraphiQL page files in production (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let asset: string;
    before(async () => {
      const development = await startTestServer(dialect, GRAPHQL_TEST_ENV);
      asset = filesOf((await development.request('GET', '/graphiql')).text)[0]!;
      await development.close();
      t = await startTestServer(dialect, { NODE_ENV: 'production', ...GRAPHQL_TEST_ENV });
    });
    after(() => t?.close());

    it('serves neither the page nor its files unless GRAPHIQL=true', async () => {
      assert.equal((await t.request('GET', '/graphiql')).status, 404);
      assert.equal((await t.request('GET', asset)).status, 404);
    });
  });
}
