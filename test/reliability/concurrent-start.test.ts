import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DIALECTS } from '../support/dialects.ts';
import { openDatabase, startProcess } from './harness.test-support.ts';
import type { Readable } from 'node:stream';

function drained(stream: Readable | null): Promise<void> {
  if (!stream || stream.readableEnded || stream.destroyed) return Promise.resolve();
  return new Promise((resolve) => stream.once('close', () => resolve()));
}

for (const dialect of DIALECTS) {
  describe(
    `start-up of several instances at once on a brand-new database (${dialect.name})`,
    { skip: dialect.skip },
    () => {
      it('starts them all, applies the migrations once, creates one administrator and loads the demo data once', async () => {
        const database = await dialect.createDatabase();
        const db = openDatabase(database.url);
        try {
          // Before the fixes: "table users already exists" (SQLite) and a duplicate administrator (PostgreSQL) killed one.
          // allSettled, not all: when one fails to start, the others must still be stopped (else they outlive the suite).
          const started = await Promise.allSettled(
            [0, 1, 2].map(() => startProcess({ DATABASE_URL: database.url, DEMO_DATA: 'true' })),
          );
          const servers = started.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
          const failure = started.find((outcome) => outcome.status === 'rejected');
          if (failure) {
            for (const server of servers) server.process.kill('SIGKILL');
            throw failure.reason;
          }
          const admins = await db.selectFrom('users').select('id').where('role', '=', 'admin').execute();
          assert.equal(admins.length, 1);
          for (const server of servers) {
            assert.equal((await fetch(`${server.url}/readyz`)).status, 200);
            server.process.kill('SIGTERM');
          }
          assert.deepEqual(await Promise.all(servers.map((server) => server.exited)), [0, 0, 0]);
          // Counted once every output is read to its end: a line written just before readiness can reach
          // this process after the /readyz answer does (two channels), as it did once on CI.
          await Promise.all(servers.flatMap((server) => [server.process.stdout, server.process.stderr].map(drained)));
          const lines = servers.flatMap((server) => server.lines);
          assert.equal(lines.filter((line) => line.includes('Applied migrations')).length, 1);
          assert.equal(lines.filter((line) => line.includes('Loaded the demo data')).length, 1);
        } finally {
          await db.destroy();
          await database.drop();
        }
      });
    },
  );
}
