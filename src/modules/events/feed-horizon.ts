import { sql } from 'kysely';
import type { Db } from '../../core/db/database.ts';

/**
 * PostgreSQL: the feed's horizon, the place below which no event can appear any more (README.md,
 * "Feed order"), held back only by the transactions that write events.
 *
 * Every transaction that writes an event first takes a shared transaction-level advisory lock on one
 * fixed key, the writer key, before its first write (so before it has a transaction id): the outbox
 * transaction's first statement, or a step of the one statement that writes a row with its event. A
 * transaction running without it writes no event: it would have had to take the key before its first
 * write. So the feed's read waits for the in-progress transactions of its snapshot only while they may
 * write one, where `pg_snapshot_xmin` waited for every transaction of the whole server (a transaction
 * left open in another database held every consumer back).
 */

/**
 * The writer key: (5194328, 1) in the two-key form (5194328 = 0x4F4258, "OBX", apart from the
 * per-resource locks' "EVT" space), written into the text below as it is (`pg_locks` shows the two
 * keys as `classid` and `objid`, with `objsubid` 2). Shared: writers never wait for each other at it;
 * nothing takes it exclusively.
 */
export const TAKE_WRITER_KEY = sql`pg_advisory_xact_lock_shared(5194328, 1)`;

/** Takes the writer key in `trx` (its first statement, before any write). */
export async function takeWriterKey(trx: Db): Promise<void> {
  await sql`select ${TAKE_WRITER_KEY}`.execute(trx);
}

/**
 * The horizon of the statement it is part of, as a `bigint` (one read of the snapshot and one of the
 * lock table, so one moment): the snapshot's `xmax`, lowered to the least of its in-progress
 * transaction ids except those that, in `pg_locks`, are still running without the writer key of this
 * database. Such a transaction writes no event (above). One that ended after the snapshot is not
 * known to have written none, so it still bounds the horizon (until the next read). One holding the
 * key without an id yet gets an id of at least `xmax`. So every event placed at or past the horizon is
 * one this read cannot see yet, and none can appear below it later: a reader going on from the last
 * place it was given skips nothing.
 *
 * A transaction's own id is the one `transactionid` lock held in `ExclusiveLock` mode: a transaction
 * waiting for another's end (a row or a unique key it wrote) holds a `ShareLock` on that id for an
 * instant once it has ended, which must not make the ended one look running (without the key).
 * At its end a transaction gives up its own id's lock before its advisory locks (PostgreSQL's
 * `ProcReleaseLocks`), so an event writer never looks running without the key.
 * `pg_locks.transactionid` is a 32-bit `xid`, the snapshot's ids 64-bit `xid8`: compared as `xid`
 * (within the ids running now they are unique). The lock table is read once (materialized), so both
 * questions see the same moment: read twice, a writer ending in between would look like one running
 * without the key. A transaction's two locks are matched by the backend holding them (`pid`), not by
 * `virtualtransaction`: pg_locks fills that from the backend's current local transaction id as it
 * reads each lock, and a commit resets it before the locks go, so a writer committing during the read
 * showed its id's lock and its key under two different values (`19/141252` and `19/0`), looked like
 * one running without the key, and the consumers read past its event (a few in 30,000 under 24
 * concurrent writers: events.horizon.test.ts). A backend runs one transaction at a time, and the key
 * is a transaction-level lock, so the same `pid` is the same transaction.
 */
export const FEED_HORIZON = sql<number>`(
  with "held_locks" as materialized (
    select "locktype", "transactionid", "pid" from pg_locks
    where "granted" and (("locktype" = 'transactionid' and "mode" = 'ExclusiveLock') or ("locktype" = 'advisory'
      and "classid" = 5194328 and "objid" = 1 and "objsubid" = 2
      and "database" = (select "oid" from pg_database where "datname" = current_database())))
  )
  select coalesce(min("running"."xid"::text::bigint), pg_snapshot_xmax(pg_current_snapshot())::text::bigint)
  from pg_snapshot_xip(pg_current_snapshot()) as "running"("xid")
  where not exists (
    select 1 from "held_locks" as "own"
    where "own"."locktype" = 'transactionid' and "own"."transactionid" = "running"."xid"::xid
      and not exists (
        select 1 from "held_locks" as "key"
        where "key"."locktype" = 'advisory' and "key"."pid" = "own"."pid"
      )
  )
)`;

/** The name of the writer key's step in the one statement of a row and its event. */
export const WRITER_KEY_STEP = 'writer_key';
