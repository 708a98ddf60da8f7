import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
// @ts-expect-error bin/ is plain JavaScript without types (it must run on any Node to refuse an old one).
import { entryPoint } from '../../bin/entry-point.js';
import { spawnServer } from '../support/child-server.ts';

const ROOT = new URL('../..', import.meta.url);
type Entry = { url: string; warning?: string };
const choose = entryPoint as (root: URL, env?: Record<string, string>) => Entry;

describe('the CLI runs the compiled build while it is current, the sources otherwise', () => {
  const dir = mkdtempSync(join(tmpdir(), 'entry-point-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const root = pathToFileURL(`${dir}/`);
  const at = (path: string, seconds: number) => utimesSync(join(dir, path), seconds, seconds);
  mkdirSync(join(dir, 'src/modules'), { recursive: true });
  writeFileSync(join(dir, 'src/cli.ts'), '');
  writeFileSync(join(dir, 'src/modules/a.ts'), '');

  it('runs the sources, saying why, when there is no build', () => {
    const entry = choose(root, {});
    assert.equal(entry.url, new URL('src/cli.ts', root).href);
    assert.match(entry.warning ?? '', /No compiled build/);
  });

  it('runs dist/cli.js when its stamp is newer than every source', () => {
    mkdirSync(join(dir, 'dist'), { recursive: true });
    writeFileSync(join(dir, 'dist/cli.js'), '');
    writeFileSync(join(dir, 'dist/.built'), '');
    at('src/cli.ts', 1_000);
    at('src/modules/a.ts', 1_000);
    at('dist/.built', 2_000);
    assert.deepEqual(choose(root, {}), { url: new URL('dist/cli.js', root).href });
  });

  it('runs the sources when any source, however deep, was changed after the build', () => {
    at('src/modules/a.ts', 3_000);
    const entry = choose(root, {});
    assert.equal(entry.url, new URL('src/cli.ts', root).href);
    assert.match(entry.warning ?? '', /older than src\/modules\/a\.ts/);
  });

  it('keeps running the build when only a test or its support changed (the build holds neither)', () => {
    at('src/modules/a.ts', 1_000);
    writeFileSync(join(dir, 'src/modules/a.test.ts'), '');
    writeFileSync(join(dir, 'src/modules/a.test-support.ts'), '');
    at('src/modules/a.test.ts', 3_000);
    at('src/modules/a.test-support.ts', 3_000);
    assert.deepEqual(choose(root, {}), { url: new URL('dist/cli.js', root).href });
  });

  it('runs the sources when asked (CONTENT_SERVICE_FROM_SOURCE=1, as `npm run dev` does)', () => {
    at('src/modules/a.ts', 1_000);
    assert.deepEqual(choose(root, { CONTENT_SERVICE_FROM_SOURCE: '1' }), { url: new URL('src/cli.ts', root).href });
  });
});

describe('the compiled build (dist/, what `npm start` runs after `npm ci`)', () => {
  it('serves the API, its documents with the recorded examples, and GraphQL', async () => {
    // `npm ci` built it (`prepare`); a working tree with newer sources builds it again here.
    if (!choose(ROOT).url.endsWith('/dist/cli.js'))
      execFileSync(process.execPath, ['scripts/build.ts'], { cwd: fileURLToPath(ROOT), stdio: 'ignore' });
    assert.ok(choose(ROOT).url.endsWith('/dist/cli.js'), 'npm run build makes the build current');
    const server = await spawnServer(
      { DATABASE_URL: 'sqlite::memory:', NODE_ENV: 'development' },
      ['serve'],
      'dist/cli.js',
    );
    try {
      assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
      const product = await fetch(`${server.url}/api/v2/products/2`);
      assert.equal(product.status, 200);
      assert.equal(((await product.json()) as { id: number }).id, 2);
      const document = JSON.stringify(await (await fetch(`${server.url}/api/v2/openapi.json`)).json());
      assert.match(document, /"examples?":/, 'the recorded examples (src/openapi-examples.json) are found from dist/');
      // The demo data (a new database outside production) signs in and reads through GraphQL.
      const signIn = await fetch(`${server.url}/api/auth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'alice@example.com', password: 'demo-password' }),
      });
      assert.equal(signIn.status, 200);
      const { access_token: token } = (await signIn.json()) as { access_token: string };
      const graphql = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ query: '{ posts(limit: 1) { id title } }' }),
      });
      assert.equal(graphql.status, 200);
      assert.equal(((await graphql.json()) as { data: { posts: unknown[] } }).data.posts.length, 1);
    } finally {
      server.process.kill('SIGTERM');
      await server.exited;
    }
  });
});
