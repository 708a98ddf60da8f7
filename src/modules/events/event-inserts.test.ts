import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql, type Insertable, type QueryCreator } from 'kysely';
import type { Db } from '../../core/db/database.ts';
import type { Tables } from '../../core/db/tables.ts';
import { migrateToLatest } from '../../core/db/migrate.ts';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { suiteDatabase } from '../../../test/support/suite-database.ts';
import { migrationsOfModules } from '../index.ts';
import { bindsAsIs } from './events.statements.ts';
import { insertCreatedRow, insertCreatedRowWithEvent, insertEvent, reserveRowIds } from './events.repository.ts';

/**
 * The inserts of a create (its row by the module's own insert, its event), compiled once per module
 * insert and column list (events.statements.ts).
 */

/** A module's insert as its repository writes it (users.repository.ts has the app's). */
const userInsert = (qc: QueryCreator<Tables>, row: Insertable<Tables['users']>) =>
  qc.insertInto('users').values(row).returningAll();

const NOW = '2026-11-26T10:00:00.000Z';

function userRow(postgres: boolean, n: number, name: unknown = `Insert ${n}`): Insertable<Tables['users']> {
  return {
    name,
    email: `insert-${n}@example.com`,
    age: n,
    role: 'user',
    status: 'active',
    email_verified: postgres ? n % 2 === 0 : n % 2,
    password_hash: null,
    created_at: NOW,
    updated_at: NOW,
  } as Insertable<Tables['users']>;
}

const eventOf = (n: number, id: number) => ({
  event_id: `evt_insert_${n}`,
  type: 'user.created',
  resource: `user:${id}`,
  data: JSON.stringify({ id, n }),
  created_at: NOW,
});

async function storedUser(db: Db, id: number) {
  return db.selectFrom('users').select(['name', 'email', 'age']).where('id', '=', id).executeTakeFirstOrThrow();
}

async function storedEvent(db: Db, eventId: string) {
  return db
    .selectFrom('events')
    .select(['type', 'resource', 'data', 'tx'])
    .where('event_id', '=', eventId)
    .executeTakeFirstOrThrow();
}

for (const dialect of DIALECTS) {
  const postgres = dialect.name === 'postgres';
  describe(`events: a create's row and event inserts (${dialect.name})`, { skip: dialect.skip }, () => {
    const suite = suiteDatabase(dialect, { poolSize: 2, setUp: (db) => migrateToLatest(db, migrationsOfModules) });

    /** One create as the service writes it: PostgreSQL in one statement, SQLite in a transaction. */
    async function create(n: number, row = userRow(postgres, n)): Promise<{ id: number; tx: number }> {
      const db = suite.db;
      if (postgres) {
        const [id] = await reserveRowIds(db, 'users', 1);
        const written = await insertCreatedRowWithEvent(db, userInsert, { ...row, id: id! }, eventOf(n, id!));
        return { id: written.id, tx: 0 };
      }
      return db.transaction().execute(async (trx) => {
        const written = await insertCreatedRow(trx, userInsert, row);
        await insertEvent(trx, eventOf(n, written.id), true);
        return { id: written.id, tx: 0 };
      });
    }

    it('writes each row and event with its own values when the statement is reused', async () => {
      const first = await create(1);
      const second = await create(2);
      const third = await create(3);
      assert.equal(new Set([first.id, second.id, third.id]).size, 3);
      for (const [n, { id }] of [first, second, third].entries()) {
        assert.deepEqual(await storedUser(suite.db, id), {
          name: `Insert ${n + 1}`,
          email: `insert-${n + 1}@example.com`,
          age: n + 1,
        });
        const event = await storedEvent(suite.db, `evt_insert_${n + 1}`);
        assert.deepEqual(
          { type: event.type, resource: event.resource, data: JSON.parse(event.data) },
          { type: 'user.created', resource: `user:${id}`, data: { id, n: n + 1 } },
        );
      }
    });

    it("places a fresh resource's event at its writer's transaction (PostgreSQL) or at 0 (SQLite)", async () => {
      if (!postgres) {
        const { id } = await create(4);
        assert.equal(Number((await storedEvent(suite.db, 'evt_insert_4')).tx), 0, `user ${id}`);
        return;
      }
      const [id] = await reserveRowIds(suite.db, 'users', 1);
      const own = await suite.db.transaction().execute(async (trx) => {
        await insertCreatedRowWithEvent(trx, userInsert, { ...userRow(true, 4), id: id! }, eventOf(4, id!));
        await insertEvent(trx, { ...eventOf(5, id!), event_id: 'evt_insert_5', type: 'user.updated' }, true);
        const { rows } = await sql<{ xid: string }>`select pg_current_xact_id()::text as xid`.execute(trx);
        return Number(rows[0]!.xid);
      });
      assert.equal(Number((await storedEvent(suite.db, 'evt_insert_4')).tx), own);
      assert.equal(Number((await storedEvent(suite.db, 'evt_insert_5')).tx), own);
    });

    it('still writes a row whose value is an SQL expression, built by Kysely', async () => {
      const name = sql<string>`upper(${'expression'})`;
      assert.equal(bindsAsIs(userRow(postgres, 6, name)), false);
      const { id } = await create(6, userRow(postgres, 6, name));
      assert.equal((await storedUser(suite.db, id)).name, 'EXPRESSION');
    });
  });
}

describe('events: which rows the compiled inserts take', () => {
  it('takes plain values only: no SQL expression, array, object or function', () => {
    assert.equal(bindsAsIs({ a: 'text', b: 1, c: null, d: undefined, e: true, f: 2n }), true);
    assert.equal(bindsAsIs({ a: sql`now()` }), false);
    assert.equal(bindsAsIs({ a: [1, 2] }), false);
    assert.equal(bindsAsIs({ a: { b: 1 } }), false);
    assert.equal(bindsAsIs({ a: () => 1 }), false);
  });
});
