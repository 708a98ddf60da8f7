import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer } from '../../../test/support/test-server.ts';
import { FAST_WEBHOOKS } from '../../../test/support/webhooks.ts';

/**
 * A stop goes on when the database is already gone (closed first, or lost): the delivery worker's last
 * flush of recorded successes fails, is logged, and the server still closes. Successes it could not record
 * are sent again once their lease runs out (at least once, DECISIONS §10).
 */
for (const dialect of DIALECTS) {
  describe(`webhooks: stopping without a database (${dialect.name})`, { skip: dialect.skip }, () => {
    it('closes the server when the database was destroyed before the stop', async () => {
      const t = await startTestServer(dialect, FAST_WEBHOOKS);
      await t.server.db.destroy();
      await assert.doesNotReject(t.close());
    });
  });
}
