import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { migrateToLatest } from '../../core/db/migrate.ts';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { suiteDatabase } from '../../../test/support/suite-database.ts';
import { migrationsOfModules } from '../index.ts';
import * as repo from './events.repository.ts';

const OLD = '2026-01-01T00:00:00.000Z';
const NEW = '2026-12-01T00:00:00.000Z';
const CUTOFF = '2026-06-01T00:00:00.000Z';

/**
 * The retention purge deletes the feed's expired prefix (there is no index on `created_at`): every event
 * before the first one written inside the retention, never one inside it; an expired event placed after
 * a kept one waits for it (kept longer, never dropped early); a consumer's place bounds it as before.
 */
for (const dialect of DIALECTS) {
  describe(`events: the retention purge (${dialect.name})`, { skip: dialect.skip }, () => {
    const suite = suiteDatabase(dialect, { poolSize: 1, setUp: (db) => migrateToLatest(db, migrationsOfModules) });

    const write = async (stamps: string[]) => {
      const db = suite.db;
      await db.deleteFrom('events').execute();
      const rows = stamps.map((created_at, i) => ({
        // PostgreSQL places by `tx`; SQLite's is always 0.
        tx: dialect.name === 'postgres' ? 100 + i : 0,
        event_id: `evt_purge_${i}`,
        type: 'user.updated',
        resource: `user:${i}`,
        data: '{}',
        created_at,
      }));
      await db.insertInto('events').values(rows).execute();
      return db.selectFrom('events').select(['tx', 'seq', 'event_id']).orderBy('tx').orderBy('seq').execute();
    };
    const left = async () =>
      (await suite.db.selectFrom('events').select('event_id').orderBy('tx').orderBy('seq').execute()).map(
        (row) => row.event_id,
      );

    it('deletes the expired prefix up to the first event inside the retention, and none after it', async () => {
      await write([OLD, OLD, NEW, OLD, NEW]);
      assert.equal(await repo.deleteEventsBefore(suite.db, CUTOFF, undefined), 2);
      assert.deepEqual(await left(), ['evt_purge_2', 'evt_purge_3', 'evt_purge_4'], 'the late-stamped old one waits');
    });

    it('stops at the place of the slowest consumer, and deletes everything once all has expired', async () => {
      const rows = await write([OLD, OLD, OLD]);
      assert.equal(await repo.deleteEventsBefore(suite.db, CUTOFF, rows[0]), 1);
      assert.equal(await repo.deleteEventsBefore(suite.db, CUTOFF, undefined), 2);
      assert.deepEqual(await left(), []);
    });
  });
}
