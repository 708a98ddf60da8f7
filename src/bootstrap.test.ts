import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DIALECTS } from '../test/support/dialects.ts';
import { startTestServer } from '../test/support/test-server.ts';

/** DEMO_DATA unset is '' here: startTestServer passes DEMO_DATA=false unless a test overrides it, and '' means unset. */
const UNSET = '';

for (const dialect of DIALECTS) {
  describe(`demo data on a brand-new database (${dialect.name})`, { skip: dialect.skip }, () => {
    async function demoCounts(env: Record<string, string>) {
      const t = await startTestServer(dialect, { REPORT_WORKER: 'false', ...env });
      try {
        const demoUsers = await t.server.db
          .selectFrom('users')
          .select('id')
          .where('email', '=', 'alice@example.com')
          .execute();
        const products = await t.request('GET', '/api/products');
        return { demoUsers: demoUsers.length, products: products.body.pagination.total as number };
      } finally {
        await t.close();
      }
    }

    it('loads no demo data (no account with the published password) in production when DEMO_DATA is unset', async () => {
      assert.deepEqual(await demoCounts({ NODE_ENV: 'production', DEMO_DATA: UNSET }), { demoUsers: 0, products: 0 });
    });

    it('loads the demo data in production only when DEMO_DATA=true says so', async () => {
      const counts = await demoCounts({ NODE_ENV: 'production', DEMO_DATA: 'true' });
      assert.equal(counts.demoUsers, 1);
      assert.ok(counts.products > 0);
    });

    it('loads the demo data outside production when DEMO_DATA is unset', async () => {
      const counts = await demoCounts({ NODE_ENV: 'development', DEMO_DATA: UNSET });
      assert.equal(counts.demoUsers, 1);
      assert.ok(counts.products > 0);
    });
  });
}
