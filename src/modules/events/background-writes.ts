import { sql } from 'kysely';
import { dialectOf, type Db } from '../../core/db/database.ts';
import { inTransaction } from '../../core/db/transaction.ts';

/**
 * The outbox consumers' own writes (a consumer's move, the fan-out's deliveries, a claim, an attempt's
 * outcome) commit without waiting for the disk: SQLite runs them at `synchronous = NORMAL` (set on the
 * one connection before the transaction, back to what it was after, while the connection is held, so no
 * request's commit runs at NORMAL), PostgreSQL with `synchronous_commit = off` for the transaction.
 *
 * Why no guarantee of DECISIONS §10 depends on their durability: every one of them only records progress
 * that can be made again. Lost in a power cut or an operating-system crash (a killed process loses
 * nothing: the commit is in the operating system's cache), a consumer's move makes its events come again
 * (NATS drops them by `Nats-Msg-Id`, the fan-out's unique (endpoint, event) index makes them no-ops), a
 * claim runs out, a success sends its delivery again: at least once, as after any crash. Nothing a
 * request commits is written this way: the change and its event keep the service's durable commit. And
 * a later durable commit makes every earlier one durable too (SQLite's WAL and PostgreSQL's WAL are
 * written in order), so under load this lasts milliseconds. On SQLite each synchronous commit waited for
 * the disk on the event loop: several per tick of the consumers, beside every request's own.
 */
export async function backgroundTransaction<T>(db: Db, work: (trx: Db) => Promise<T>): Promise<T> {
  if (dialectOf(db) === 'postgres')
    return inTransaction(db, async (trx) => {
      await sql`set local synchronous_commit = off`.execute(trx);
      return work(trx);
    });
  return withoutSync(db, (connection) => inTransaction(connection, work));
}

/** One statement of a consumer's own, as `backgroundTransaction` (PostgreSQL: a plain statement). */
export function backgroundWrite<T>(db: Db, write: (db: Db) => Promise<T>): Promise<T> {
  return dialectOf(db) === 'postgres' ? write(db) : withoutSync(db, write);
}

/** SQLite: `work` on the one connection, held throughout, at `synchronous = NORMAL`. */
function withoutSync<T>(db: Db, work: (connection: Db) => Promise<T>): Promise<T> {
  return db.connection().execute(async (connection) => {
    // The level cannot change inside a transaction: set before it begins, restored after it ends.
    const { rows } = await sql<{ synchronous: number }>`pragma synchronous`.execute(connection);
    const level = Number(rows[0]?.synchronous ?? 2);
    await sql`pragma synchronous = 1`.execute(connection);
    try {
      return await work(connection);
    } finally {
      // `level` is SQLite's own answer read above, as a number (pragmas take no bound values); no client text.
      // eslint-disable-next-line no-restricted-syntax -- a number SQLite gave, see above
      await sql.raw(`pragma synchronous = ${level}`).execute(connection);
    }
  });
}
