import { sql } from 'kysely';
import { dialectOf, type Db } from './database.ts';
import { isPlainIdentifier } from './identifiers.ts';

/**
 * Rows a migration derives from a table that may already be large (a search document per post), filled
 * after the transactional migrations, a range of ids per statement, so the table's writers never wait for
 * more than one range (DECISIONS §1, ops). The migration itself only creates what keeps new and changed
 * rows in step (its triggers, which must upsert so a range filled from an older snapshot cannot overwrite
 * a newer row); the backfill fills the rows that existed before, idempotently (`on conflict do nothing`),
 * and is recorded as done in `online_backfills`, so a later start skips it and a killed one starts it over.
 * PostgreSQL only: SQLite's migration fills its rows itself (one process, one file, migrated stopped).
 */
export interface OnlineBackfill {
  /** Recorded in `online_backfills` once done: unique, a plain identifier. */
  name: string;
  /** The table walked by its integer `id`. */
  table: string;
  /** One statement filling what the rows with `after < id <= upTo` need. */
  fill(db: Db, after: number, upTo: number): Promise<void>;
}

/** Ids per statement: a range of a large table's rows takes well under a second. */
export const BACKFILL_RANGE = 5000;
/** A range whose row was deleted between its read and its insert fails its foreign key: it is run again. */
const FOREIGN_KEY_VIOLATION = '23503';
const ATTEMPTS = 3;

export interface OnlineBackfillHooks {
  onBackfill?: (backfill: OnlineBackfill) => void;
}

/** Runs each backfill not yet recorded as done (on PostgreSQL, outside any transaction); returns their names. */
export async function runOnlineBackfills(
  db: Db,
  backfills: readonly OnlineBackfill[],
  hooks: OnlineBackfillHooks = {},
): Promise<string[]> {
  if (backfills.length === 0 || dialectOf(db) !== 'postgres') return [];
  // Looked for before it is created: a server running as a role without CREATE (docs/OPERATIONS.md §2)
  // finds it made by the owner's `content-service migrate`, and `create ... if not exists` would be refused.
  const { rows: found } = await sql<{ found: string | null }>`select to_regclass('online_backfills') as found`.execute(
    db,
  );
  if (!found[0]?.found) {
    await sql`create table if not exists online_backfills (name text primary key, done_at timestamptz not null)`.execute(
      db,
    );
  }
  const { rows } = await sql<{ name: string }>`select name from online_backfills`.execute(db);
  const done = new Set(rows.map((row) => row.name));
  const ran: string[] = [];
  for (const backfill of backfills) {
    if (!isPlainIdentifier(backfill.name) || !isPlainIdentifier(backfill.table)) {
      throw new Error(`online backfill ${backfill.name} of ${backfill.table}: names must be plain identifiers`);
    }
    if (done.has(backfill.name)) continue;
    hooks.onBackfill?.(backfill);
    const { rows: bounds } = await sql<{ last: number | null }>`select max(id) as last from ${sql.table(
      backfill.table,
    )}`.execute(db);
    const last = Number(bounds[0]?.last ?? 0);
    for (let after = 0; after < last; after += BACKFILL_RANGE) {
      await fillRange(db, backfill, after, Math.min(after + BACKFILL_RANGE, last));
    }
    await sql`insert into online_backfills (name, done_at) values (${backfill.name}, now()) on conflict do nothing`.execute(
      db,
    );
    ran.push(backfill.name);
  }
  return ran;
}

async function fillRange(db: Db, backfill: OnlineBackfill, after: number, upTo: number): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await backfill.fill(db, after, upTo);
    } catch (error) {
      if ((error as { code?: unknown }).code !== FOREIGN_KEY_VIOLATION || attempt >= ATTEMPTS) throw error;
    }
  }
}
