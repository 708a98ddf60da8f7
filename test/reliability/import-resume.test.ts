import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Db } from '../../src/core/db/database.ts';
import type { ChildServer } from '../support/child-server.ts';
import { DIALECTS } from '../support/dialects.ts';
import { openDatabase, tokenFor, waitFor } from './harness.test-support.ts';
import { startRole, stopRole } from './process-roles.test-support.ts';

/**
 * Chunks of ten rows (IMPORT_CHUNK_ROWS), so a small upload spans many; a dead worker's lease runs out in 1 s;
 * two lanes on PostgreSQL (chunks committed side by side, folded into the job's row after each step) from
 * the first step: no giving way to other work (IMPORT_YIELD), which would start the job in one lane.
 */
const IMPORT_ENV = {
  IMPORT_CHUNK_ROWS: '10',
  IMPORT_POLL_MS: '50',
  IMPORT_LEASE_MS: '1000',
  IMPORT_LANES: '2',
  IMPORT_YIELD: 'false',
};
const ROWS = 2000;

/**
 * DECISIONS §18: an import is a stored job whose position commits with each chunk, so a worker process
 * SIGKILLed mid-import is resumed by another after its last committed chunk, and no row is written twice
 * or left out. The worker is stopped (SIGSTOP) as soon as a first chunk has committed, wherever it is
 * (often mid-chunk, its transaction open), its committed chunks read (the job's position, and on PostgreSQL
 * the lanes' chunks not folded into it yet), and then it is SIGKILLed: part of the file is written and the
 * rest not. The next worker skips the lanes' done chunks and fills whatever lies between them.
 */
for (const dialect of DIALECTS) {
  describe(`an import across a SIGKILLed worker (${dialect.name})`, { skip: dialect.skip }, () => {
    let database: { url: string; drop(): Promise<void> };
    let db: Db;
    let api: ChildServer;
    const workers: ChildServer[] = [];
    before(async () => {
      database = await dialect.createDatabase();
      api = await startRole({ DATABASE_URL: database.url, ...IMPORT_ENV }, ['serve', '--role', 'api']);
      db = openDatabase(database.url);
    });
    after(async () => {
      for (const server of [...workers, api])
        if (server?.process.exitCode === null && server.process.signalCode === null) await stopRole(server);
      await db?.destroy();
      await database?.drop();
    });

    it('resumes after the last committed chunk: every row written exactly once, each with its one event, and the job done', async () => {
      // The worker first, so that the test watches the job from its first chunk.
      const first = await startRole({ DATABASE_URL: database.url, ...IMPORT_ENV }, ['worker']);
      workers.push(first);
      const admin = await tokenFor(1, 'admin');
      const csv = ['name,category,price,stock', ...Array.from({ length: ROWS }, (_, i) => `Row ${i + 1},resume,1,1`)];
      const uploaded = await fetch(`${api.url}/api/v2/imports?resource=products`, {
        method: 'POST',
        headers: { authorization: `Bearer ${admin}`, 'content-type': 'text/csv' },
        body: csv.join('\n'),
      });
      assert.equal(uploaded.status, 202, await uploaded.clone().text());
      const id = ((await uploaded.json()) as { id: number }).id;
      const job = () => db.selectFrom('imports').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

      // The rows of the committed chunks: up to the job's position, and the lanes' chunks not folded yet.
      const committed = async () => {
        const chunks = await db.selectFrom('import_chunks').selectAll().where('import_id', '=', id).execute();
        const inChunks = chunks.reduce((sum, chunk) => sum + chunk.last_line - chunk.first_line + 1, 0);
        return { rows: Math.max(0, (await job()).position - 1) + inChunks, chunks: chunks.length };
      };
      const deadline = Date.now() + 60_000;
      while ((await committed()).rows === 0) {
        assert.ok(Date.now() < deadline, 'the first worker commits a chunk');
        await sleep(2);
      }
      // Stopped where it is (perhaps mid-chunk, its transaction open), then killed.
      first.process.kill('SIGSTOP');
      const killedAt = await committed();
      first.process.kill('SIGKILL');
      await first.exited;
      assert.ok(killedAt.rows > 0 && killedAt.rows < ROWS, `killed mid-import (${killedAt.rows} of ${ROWS} rows)`);
      if (dialect.name === 'postgres') assert.ok(killedAt.chunks > 0, 'killed with done chunks not folded yet');
      const written = await db.selectFrom('products').select('id').where('category', '=', 'resume').execute();
      assert.equal(written.length, killedAt.rows, 'exactly the committed chunks are written');

      const second = await startRole({ DATABASE_URL: database.url, ...IMPORT_ENV }, ['worker']);
      workers.push(second);
      await waitFor(async () => (await job()).status === 'done', 60_000, 'the second worker to finish the import');

      const done = await job();
      assert.deepEqual([done.rows_read, done.rows_created, done.rows_failed, done.position], [ROWS, ROWS, 0, ROWS + 1]);
      const left = await db.selectFrom('import_chunks').select('first_line').where('import_id', '=', id).execute();
      assert.deepEqual(left, [], 'every done chunk folded into the job');
      const names = await db
        .selectFrom('products')
        .select(['name', (eb) => eb.fn.countAll<number>().as('times')])
        .where('category', '=', 'resume')
        .groupBy('name')
        .execute();
      assert.equal(names.length, ROWS, 'every row is written');
      assert.deepEqual(
        names.filter((row) => Number(row.times) !== 1),
        [],
        'no row is written twice',
      );
      const events = await db
        .selectFrom('events')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('type', '=', 'product.created')
        .where('import_id', '=', id)
        .executeTakeFirstOrThrow();
      assert.equal(Number(events.count), ROWS, "one product.created with the import's id per row");
    });
  });
}
