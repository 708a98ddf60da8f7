import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DATABASE_INDEPENDENT } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

/** The token in the page's Scalar configuration (`authentication.securitySchemes.bearerAuth.token`), if any. */
function presetToken(html: string): string | undefined {
  return /"bearerAuth":\{"token":"([^"]+)"\}/.exec(html.replaceAll('&quot;', '"').replace(/\s+/g, ''))?.[1];
}

/** Issue 75: /docs, like GraphiQL, opens pre-authorised with a demo token in development, and never in production. */
for (const dialect of DATABASE_INDEPENDENT) {
  describe(`the API reference's demo token (${dialect.name})`, { skip: dialect.skip }, () => {
    let development: TestServer;
    let production: TestServer;
    before(async () => {
      development = await startTestServer(dialect, { NODE_ENV: 'development', DEMO_DATA: 'true' });
      production = await startTestServer(dialect, { NODE_ENV: 'production', DEMO_DATA: 'true', METRICS_PORT: '0' });
    });
    after(async () => {
      await development?.close();
      await production?.close();
    });

    it("opens pre-authorised in development with a demo account's token that the API accepts, never cached", async () => {
      const page = await development.request('GET', '/docs/');
      assert.equal(page.status, 200);
      assert.equal(page.headers.get('cache-control'), 'no-store');
      const token = presetToken(page.text);
      assert.ok(token, 'the page presets the bearer token');
      assert.match(page.text, /preferredSecurityScheme/);
      const orders = await development.request('GET', '/api/v2/orders', { token });
      assert.equal(orders.status, 200, orders.text);
      const me = await development.request('GET', '/api/v2/users/2', { token });
      assert.equal(me.body.email, 'alice@example.com', 'a demo user, not the administrator');
    });

    it('holds no token in production', async () => {
      const page = await production.request('GET', '/docs/');
      assert.equal(page.status, 200);
      assert.equal(presetToken(page.text), undefined);
      assert.doesNotMatch(page.text, /bearerAuth/);
    });
  });
}
