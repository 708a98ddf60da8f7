import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CompiledQuery, sql } from 'kysely';
import { observeQueries } from '../../core/db/database.ts';
import { migrateToLatest } from '../../core/db/migrate.ts';
import { dialectNamed } from '../../../test/support/dialects.ts';
import { suiteDatabase } from '../../../test/support/suite-database.ts';
import { migrationsOfModules } from '../index.ts';
import * as repo from './events.repository.ts';

/**
 * On SQLite the outbox costs each write one row and one index entry (`event_id`): `tx` is always 0 there,
 * so the feed, the backlog and the purge go by the row id alone (migration 0014), each read planned on it
 * with no sort and no scan of what they do not return.
 */
const sqlite = dialectNamed('sqlite');

describe('events: the SQLite outbox goes by its row id', { skip: sqlite.skip }, () => {
  const suite = suiteDatabase(sqlite, { poolSize: 1 });

  it('keeps one index of its own, and reads the feed, the head, a backlog and the expired prefix on the row id', async () => {
    const db = suite.db;
    await migrateToLatest(db, migrationsOfModules);
    const indexes = await sql<{ name: string }>`
      select name from sqlite_master where type = 'index' and tbl_name = 'events' order by name`.execute(db);
    assert.deepEqual(
      indexes.rows.map((row) => row.name),
      ['sqlite_autoindex_events_1'],
      'the event id is the one index a write of an event keeps up',
    );
    await sql`
      with recursive n(i) as (select 1 union all select i + 1 from n where i < 2000)
      insert into events (event_id, type, resource, data, created_at)
      select 'evt_' || i, 'user.updated', 'user:' || i, '{}', '2026-01-01T00:00:00.000Z' from n`.execute(db);
    await db
      .insertInto('event_consumers')
      .values({ consumer: 'plan', tx: 0, seq: 1500, updated_at: '2026-01-01T00:00:00.000Z' })
      .execute();

    const statements: Array<{ text: string; parameters: readonly unknown[] }> = [];
    const stop = observeQueries(db, (text, _ms, _failed, parameters) => {
      if (/from "events"/.test(text)) statements.push({ text, parameters: parameters ?? [] });
    });
    try {
      const page = await repo.listEventsAfter(db, { after: { tx: 0, seq: 1990 }, limit: 5, filter: undefined });
      assert.deepEqual(
        page.map((row) => row.seq),
        [1991, 1992, 1993, 1994, 1995],
      );
      assert.deepEqual(await repo.findHead(db), { tx: 0, seq: 2000 });
      assert.equal(await repo.countBehind(db, 'plan'), 500);
      assert.equal(await repo.deleteEventsBefore(db, '2026-06-01T00:00:00.000Z', { tx: 0, seq: 1500 }), 1500);
    } finally {
      stop();
    }
    assert.ok(statements.length >= 4, statements.map((s) => s.text).join('\n'));
    for (const { text, parameters } of statements) {
      const plan = await db.executeQuery<{ detail: string }>(
        CompiledQuery.raw(`explain query plan ${text}`, [...parameters]),
      );
      const detail = plan.rows.map((row) => row.detail).join('\n');
      assert.doesNotMatch(detail, /TEMP B-TREE/, `${text}\n${detail}`);
      // A range of the feed is a range of row ids (the purge's look for its end walks them from the oldest).
      if (/"seq" [<>]/.test(text)) assert.match(detail, /INTEGER PRIMARY KEY \(rowid[<>]/, `${text}\n${detail}`);
    }
  });
});
