import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DATABASE_INDEPENDENT } from '../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../test/support/test-server.ts';
import { ensureAdminBuilt } from '../../test/support/admin-browser.ts';

for (const dialect of DATABASE_INDEPENDENT) {
  describe(`serving the admin console (${dialect.name})`, { skip: dialect.skip }, () => {
    let on: TestServer;
    let off: TestServer;
    before(async () => {
      await ensureAdminBuilt();
      on = await startTestServer(dialect);
      off = await startTestServer(dialect, { ADMIN_CONSOLE: 'false' });
    });
    after(async () => {
      await on?.close();
      await off?.close();
    });

    it('serves the page under a CSP that runs scripts from the origin only, and its hashed scripts for a year, gzipped', async () => {
      const moved = await fetch(`${on.url}/admin`, { redirect: 'manual' });
      assert.equal(moved.status, 301);
      assert.equal(moved.headers.get('location'), '/admin/');
      const page = await fetch(`${on.url}/admin/`);
      assert.equal(page.status, 200);
      assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
      const csp = page.headers.get('content-security-policy') ?? '';
      assert.match(csp, /default-src 'self'/);
      assert.match(csp, /script-src 'self'(;|$)/);
      assert.match(csp, /style-src 'self' 'unsafe-inline'/);
      const html = await page.text();
      assert.doesNotMatch(html, /<script>|<script [^>]*>[^<]/, 'no inline script');
      const script = /src="(\/admin\/assets\/console-[A-Z0-9]+\.js)"/.exec(html)?.[1];
      assert.ok(script, html);
      const gzipped = await fetch(`${on.url}${script}`, {
        headers: { 'accept-encoding': 'gzip' },
        decompress: false,
      } as RequestInit);
      assert.equal(gzipped.status, 200);
      assert.equal(gzipped.headers.get('cache-control'), 'public, max-age=31536000, immutable');
      assert.equal(gzipped.headers.get('content-encoding'), 'gzip');
      assert.match(gzipped.headers.get('content-type') ?? '', /^text\/javascript/);
      const plain = await fetch(`${on.url}${script}`, { headers: { 'accept-encoding': 'identity' } });
      assert.equal(plain.headers.get('content-encoding'), null);
      assert.notEqual(plain.headers.get('etag'), gzipped.headers.get('etag'));
      const body = Buffer.from(await plain.arrayBuffer());
      assert.ok(body.length > 100_000);
      const missing = await fetch(`${on.url}/admin/assets/console-NOPE.js`);
      assert.equal(missing.status, 404);
      assert.equal(((await missing.json()) as { error: { code: string } }).error.code, 'NOT_FOUND');
    });

    it('is a 404 with ADMIN_CONSOLE=false', async () => {
      for (const path of ['/admin', '/admin/', '/admin/assets/console.js']) {
        const res = await off.request('GET', path);
        assert.equal(res.status, 404, path);
        assert.equal(res.body.error.code, 'NOT_FOUND');
      }
    });
  });
}
