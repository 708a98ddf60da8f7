import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { DIALECTS } from '../support/dialects.ts';
import { BASE_ENV, call, openDatabase, startProcess, waitFor } from './harness.test-support.ts';
import { allProblems } from './invariants.test-support.ts';
import { acknowledgedWrites, prepareWorld, startWriteLoad } from './write-load.test-support.ts';

for (const dialect of DIALECTS) {
  describe(`crash safety: SIGKILL under a write load (${dialect.name})`, { skip: dialect.skip }, () => {
    it('keeps every acknowledged write, holds the invariants, restarts idempotently and resumes unfinished report jobs', async (t) => {
      const database = await dialect.createDatabase();
      const db = openDatabase(database.url);
      try {
        // The first process polls for report jobs only at start, so jobs queued under load are left unfinished.
        const first = await startProcess({ DATABASE_URL: database.url, REPORT_POLL_MS: '3600000' });
        const world = await prepareWorld(first.url, db, {
          users: 8,
          products: 5,
          stock: 500,
          tag: `crash-${dialect.name}`,
        });
        const queued = await call(first.url, 'POST', '/api/reports/generate', {
          token: world.adminToken,
          body: { type: 'sales' },
        });
        assert.equal(queued.status, 202);

        const load = startWriteLoad(world, { bases: [first.url], concurrency: 16, reports: true });
        await load.answered(400);
        first.process.kill('SIGKILL');
        assert.equal(await first.exited, null, 'killed, not exited');
        const ledger = await load.stop();
        ledger.reports.push(queued.body.id as number);

        assert.deepEqual(ledger.failures, []);
        t.diagnostic(
          `acknowledged: ${ledger.orders.size} orders, ${ledger.posts.size} posts, ${ledger.likes.size} likes, ${ledger.reports.length} reports; cut off: ${ledger.statuses.get(0) ?? 0}`,
        );
        assert.ok(
          ledger.orders.size > 20 && ledger.posts.size > 10 && ledger.likes.size > 5,
          `a real load was acknowledged: ${acknowledgedWrites(ledger)}`,
        );
        assert.ok((ledger.statuses.get(0) ?? 0) > 0, 'some requests were cut off by the kill');
        assert.deepEqual(await allProblems(db, ledger, world.products), [], 'the database as the crash left it');

        // A job the dead process had claimed stays `running` under its lease; report jobs take
        // milliseconds, so that state is set here as a kill mid-report leaves it.
        const [dead] = ledger.reports;
        await db
          .updateTable('report_jobs')
          .set({
            status: 'running',
            locked_by: 'killed-process',
            locked_until: new Date(Date.now() + 2000).toISOString(),
          })
          .where('id', '=', dead!)
          .execute();
        const unfinished = await db.selectFrom('report_jobs').select('id').where('status', '!=', 'done').execute();
        assert.ok(unfinished.length >= 2, 'there are unfinished report jobs to resume');

        const env = { ...process.env, ...BASE_ENV, DATABASE_URL: database.url, LOG_LEVEL: 'silent' };
        assert.equal(
          execFileSync(process.execPath, ['src/cli.ts', 'migrate'], { env, encoding: 'utf8' }).trim(),
          'Database is up to date',
        );

        const second = await startProcess({ DATABASE_URL: database.url, REPORT_POLL_MS: '100' });
        assert.ok(!second.lines.some((line) => line.includes('Applied migrations')), 'no migration runs twice');
        assert.ok(!second.lines.some((line) => line.includes('Created administrator')), 'no second administrator');
        await waitFor(
          async () =>
            (await db.selectFrom('report_jobs').select('id').where('status', '!=', 'done').execute()).length === 0,
          30_000,
          'every report job to finish after the restart',
        );
        assert.deepEqual(await allProblems(db, ledger, world.products), [], 'after the restart');

        const [customer] = world.users;
        const again = await call(second.url, 'POST', '/api/orders', {
          token: customer!.token,
          body: { items: [{ productId: world.products[0]!.id, quantity: 1 }] },
        });
        assert.equal(again.status, 201, 'the restarted process takes writes');
        second.process.kill('SIGTERM');
        assert.equal(await second.exited, 0);
      } finally {
        await db.destroy();
        await database.drop();
      }
    });
  });
}
