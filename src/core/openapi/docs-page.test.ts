import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import Fastify from 'fastify';
import { DATABASE_INDEPENDENT } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';
import { LiteralUnescaper, scalarPluginVersion } from './scalar-bundle.ts';

const sha1 = (bytes: Uint8Array) => createHash('sha1').update(bytes).digest('hex');

/** What Scalar's own Fastify plugin serves with the page's configuration: its page and its script. */
async function servedByScalarsPlugin(): Promise<{ html: string; script: Buffer }> {
  const { default: scalar } = await import('@scalar/fastify-api-reference');
  const app = Fastify();
  await app.register(scalar, {
    routePrefix: '/docs',
    configuration: {
      pageTitle: 'content-service API reference',
      favicon: 'data:,',
      withDefaultFonts: false,
      showDeveloperTools: 'never',
      mcp: { disabled: true },
      agent: { disabled: true },
      url: '/api/v2/openapi.json',
      sources: [
        { title: 'v2 (current)', slug: 'v2', url: '/api/v2/openapi.json', default: true, agent: { disabled: true } },
        { title: 'v1 (deprecated)', slug: 'v1', url: '/api/v1/openapi.json', agent: { disabled: true } },
      ],
    },
  });
  const html = (await app.inject('/docs/')).body;
  const script = (await app.inject('/docs/js/scalar.js')).rawPayload;
  await app.close();
  return { html, script };
}

for (const dialect of DATABASE_INDEPENDENT) {
  describe(`The API docs page and its script (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(dialect);
    });
    after(() => t?.close());

    it("serves the page and the script Scalar's plugin would, the script under a versioned URL", async () => {
      const version = scalarPluginVersion();
      const scalars = await servedByScalarsPlugin();
      const page = await t.request('GET', '/docs/');
      assert.equal(page.status, 200);
      assert.equal(page.headers.get('content-type'), 'text/html; charset=utf-8');
      assert.ok(page.text.includes(`<script src="js/scalar.js?v=${version}"></script>`), page.text);
      assert.equal(page.text.replace(`js/scalar.js?v=${version}`, 'js/scalar.js'), scalars.html);

      const script = await fetch(`${t.url}/docs/js/scalar.js?v=${version}`);
      const bytes = Buffer.from(await script.arrayBuffer());
      assert.equal(script.status, 200);
      assert.equal(script.headers.get('content-type'), 'application/javascript; charset=utf-8');
      assert.equal(script.headers.get('content-length'), String(scalars.script.length));
      assert.equal(bytes.length, scalars.script.length);
      assert.equal(sha1(bytes), sha1(scalars.script), 'the same bytes as the plugin serves');
      assert.equal(script.headers.get('etag'), `"${createHash('sha1').update(bytes).digest('base64url')}"`);
    });

    it('lets a browser keep the versioned script for a year, revalidate the bare one, and answers 304', async () => {
      const version = scalarPluginVersion();
      const versioned = await fetch(`${t.url}/docs/js/scalar.js?v=${version}`);
      await versioned.arrayBuffer();
      assert.equal(versioned.headers.get('cache-control'), 'public, max-age=31536000, immutable');
      const etag = versioned.headers.get('etag')!;
      for (const query of ['', '?v=0.0.1']) {
        const bare = await fetch(`${t.url}/docs/js/scalar.js${query}`);
        await bare.arrayBuffer();
        assert.equal(bare.status, 200, query);
        assert.equal(bare.headers.get('cache-control'), 'no-cache', query);
        assert.equal(bare.headers.get('etag'), etag, query);
      }
      const revalidated = await fetch(`${t.url}/docs/js/scalar.js`, { headers: { 'if-none-match': etag } });
      assert.equal(revalidated.status, 304);
      assert.equal(revalidated.headers.get('etag'), etag);
      assert.equal((await revalidated.arrayBuffer()).byteLength, 0);
      const moved = await fetch(`${t.url}/docs`, { redirect: 'manual' });
      assert.deepEqual([moved.status, moved.headers.get('location')], [301, '/docs/']);
    });
  });
}

describe("Scalar's bundle read from the plugin's file", () => {
  it('undoes the escapes of the literal however its chunks are cut, and refuses an escape it does not know', () => {
    const body = 'a\\"b\\\\c\\nd\\te\\`f\\\'g'; // the source text of a literal's body
    const whole = new LiteralUnescaper().unescape(Buffer.from(body)).toString();
    assert.equal(whole, 'a"b\\c\nd\te`f\'g');
    for (let cut = 0; cut <= body.length; cut += 1) {
      const unescaper = new LiteralUnescaper();
      const parts = [body.slice(0, cut), body.slice(cut)].map((part) =>
        unescaper.unescape(Buffer.from(part)).toString(),
      );
      unescaper.end();
      assert.equal(parts.join(''), whole, `cut at ${cut}`);
    }
    assert.throws(() => new LiteralUnescaper().unescape(Buffer.from('\\u0041')), /unsupported escape \\u/);
    const cutInside = new LiteralUnescaper();
    cutInside.unescape(Buffer.from('abc\\'));
    assert.throws(() => cutInside.end(), /ends inside an escape/);
  });

  it('serves the page and its script without importing the plugin, whose module holds the bundle', () => {
    // A child process records every package whose module it loads while the docs routes answer.
    const script = `
      import { registerHooks } from 'node:module';
      const loaded = new Set();
      registerHooks({
        load(url, context, next) {
          const match = /node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(url);
          if (match) loaded.add(match[1]);
          return next(url, context);
        },
      });
      const { default: Fastify } = await import('fastify');
      const { registerDocsPage } = await import('./src/core/openapi/docs-page.ts');
      const app = Fastify();
      registerDocsPage(app);
      const page = await app.inject('/docs/');
      const bundle = await app.inject('/docs/js/scalar.js');
      await app.close();
      console.log(JSON.stringify({ statuses: [page.statusCode, bundle.statusCode], bytes: bundle.rawPayload.length, loaded: [...loaded] }));
    `;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    assert.equal(child.status, 0, child.stderr);
    const seen = JSON.parse(child.stdout) as { statuses: number[]; bytes: number; loaded: string[] };
    assert.deepEqual(seen.statuses, [200, 200]);
    assert.ok(seen.bytes > 1_000_000, `the bundle: ${seen.bytes} bytes`);
    assert.ok(seen.loaded.includes('@scalar/client-side-rendering'), seen.loaded.join(', '));
    assert.ok(!seen.loaded.includes('@scalar/fastify-api-reference'), seen.loaded.join(', '));
  });
});
