import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { DIALECTS, type TestDialect } from '../support/dialects.ts';
import { call, openDatabase, startProcess } from './harness.test-support.ts';
import { orderProblems, stockProblems } from './invariants.test-support.ts';
import { prepareWorld, startWriteLoad } from './write-load.test-support.ts';

const hasPgDump = (() => {
  try {
    execFileSync('pg_dump', ['--version']);
    execFileSync('pg_restore', ['--version']);
    return true;
  } catch {
    return false;
  }
})();

/**
 * Takes the backup the way docs/OPERATIONS.md says, while a write load runs, and restores it into a new
 * database; returns its URL. SQLite: `VACUUM INTO` (a consistent snapshot from a live database).
 * PostgreSQL: `pg_dump -Fc` (one snapshot transaction), then `pg_restore` into an empty database.
 */
async function backupAndRestore(
  dialect: TestDialect,
  sourceUrl: string,
  dir: string,
  target: { url: string },
): Promise<void> {
  if (dialect.name === 'sqlite') {
    const source = openDatabase(sourceUrl);
    try {
      await sql`vacuum into ${`${dir}/backup.db`}`.execute(source);
    } finally {
      await source.destroy();
    }
    // Restore = put the file where DATABASE_URL points (no -wal/-shm files beside it).
    execFileSync('cp', [`${dir}/backup.db`, target.url.replace(/^sqlite:/, '')]);
    return;
  }
  execFileSync('pg_dump', ['-Fc', '-f', `${dir}/backup.dump`, sourceUrl]);
  execFileSync('pg_restore', ['--no-owner', '-d', target.url, `${dir}/backup.dump`]);
}

for (const dialect of DIALECTS) {
  const skip = dialect.skip || (dialect.name === 'postgres' && !hasPgDump && 'pg_dump/pg_restore not installed');
  describe(`online backup and restore (${dialect.name})`, { skip }, () => {
    it('backs up a live database under writes into a consistent copy that a server starts on', async () => {
      const source = await dialect.createDatabase();
      const restored = await dialect.createDatabase();
      const dir = await mkdtemp(`${tmpdir()}/content-service-backup-`);
      const db = openDatabase(source.url);
      try {
        const server = await startProcess({ DATABASE_URL: source.url });
        const world = await prepareWorld(server.url, db, {
          users: 4,
          products: 3,
          stock: 500,
          tag: `backup-${dialect.name}`,
        });
        const load = startWriteLoad(world, { bases: [server.url], concurrency: 6 });
        await load.answered(100);
        if (dialect.name === 'sqlite') await rm(restored.url.replace(/^sqlite:/, ''), { force: true });
        await backupAndRestore(dialect, source.url, dir, restored);
        await load.stop();
        server.process.kill('SIGTERM');
        assert.equal(await server.exited, 0);

        const copy = openDatabase(restored.url);
        try {
          const orders = await copy
            .selectFrom('orders')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow();
          assert.ok(Number(orders.n) > 0, 'the copy holds the orders');
          // A snapshot taken mid-load is still consistent: stock accounting and order shapes hold.
          assert.deepEqual(await stockProblems(copy, world.products), []);
          assert.deepEqual(await orderProblems(copy), []);
        } finally {
          await copy.destroy();
        }
        const onCopy = await startProcess({ DATABASE_URL: restored.url });
        assert.ok(
          !onCopy.lines.some((line) => line.includes('Applied migrations')),
          'the copy carries its schema version',
        );
        assert.equal((await call(onCopy.url, 'GET', '/readyz')).status, 200);
        const user = world.users[0]!;
        assert.equal((await call(onCopy.url, 'GET', `/api/users/${user.id}`, { token: user.token })).status, 200);
        onCopy.process.kill('SIGTERM');
        assert.equal(await onCopy.exited, 0);
      } finally {
        await db.destroy();
        await source.drop();
        await restored.drop();
        await rm(dir, { recursive: true, force: true });
      }
    });
  });
}
