import { sql } from 'kysely';
import { dialectOf, type Db } from './database.ts';
import { isPlainIdentifier } from './identifiers.ts';

/**
 * Indexes added to tables that may already be large, built without taking their writers down
 * (DECISIONS §1, ops). On PostgreSQL `create index concurrently` lets inserts, updates and deletes go on
 * while it runs; it cannot run in a transaction, so such an index is not built by its migration's
 * `up` (which Kysely runs in the migrations' one transaction) but declared beside it
 * (`onlineIndexes` of a migration) and built right after the transactional migrations, each time they
 * run: an index that exists and is valid is skipped, one left invalid by an interrupted build (a
 * process killed mid-build) is dropped and built again. SQLite builds it plainly: one process, one
 * file, and a build there blocks nothing but that file's writers for as long as it takes.
 *
 * The definition is code, never a request's text: a column list or an expression with its operator
 * class (`using gin (content gin_trgm_ops)`).
 */
export interface OnlineIndex {
  name: string;
  table: string;
  /** What follows `on <table>`: `(author_id, id)`, `using gin (content gin_trgm_ops)`. */
  definition: string;
  /** A unique index (a natural key such as products' `sku`). */
  unique?: boolean;
  /** An index of PostgreSQL only (a GIN index of a `tsvector`): SQLite has none to build. */
  postgresOnly?: boolean;
}

/** Where a build stands, as PostgreSQL reports it (`pg_stat_progress_create_index`). */
export interface IndexProgress {
  index: string;
  phase: string;
  /** Blocks or tuples done out of the phase's total, when PostgreSQL counts them. */
  done?: number;
  total?: number;
}

export interface OnlineIndexHooks {
  /** Hears each index about to be built. */
  onIndex?: (index: OnlineIndex) => void;
  /** Hears a PostgreSQL build's progress every few seconds, read on `progressDb` (another connection). */
  onProgress?: (progress: IndexProgress) => void;
  progressDb?: Db;
}

/**
 * Builds each index that is missing or invalid, on `db` (on PostgreSQL a session without a statement
 * timeout and outside any transaction: migrate.ts gives it one).
 */
export async function buildOnlineIndexes(
  db: Db,
  indexes: readonly OnlineIndex[],
  hooks: OnlineIndexHooks = {},
): Promise<string[]> {
  const built: string[] = [];
  for (const index of indexes) {
    if (!isPlainIdentifier(index.name) || !isPlainIdentifier(index.table)) {
      throw new Error(`online index ${index.name} on ${index.table}: names must be plain identifiers`);
    }
    const postgres = dialectOf(db) === 'postgres';
    if (index.postgresOnly && !postgres) continue;
    const state = await indexState(db, index.name, postgres);
    if (state === 'valid') continue;
    hooks.onIndex?.(index);
    if (!postgres) {
      // eslint-disable-next-line no-restricted-syntax -- the definition is code (OnlineIndex), names checked above
      await sql
        .raw(`create ${index.unique ? 'unique ' : ''}index ${index.name} on ${index.table} ${index.definition}`)
        .execute(db);
    } else {
      if (state === 'invalid') await sql`drop index concurrently if exists ${sql.id(index.name)}`.execute(db);
      const stop =
        hooks.onProgress && hooks.progressDb ? watchProgress(hooks.progressDb, index, hooks.onProgress) : undefined;
      try {
        // eslint-disable-next-line no-restricted-syntax -- the definition is code (OnlineIndex), names checked above
        await sql
          .raw(
            `create ${index.unique ? 'unique ' : ''}index concurrently ${index.name} on ${index.table} ${index.definition}`,
          )
          .execute(db);
      } finally {
        stop?.();
      }
    }
    built.push(index.name);
  }
  return built;
}

/** Whether the index exists, and if so whether PostgreSQL may use it (an interrupted concurrent build leaves it invalid). */
async function indexState(db: Db, name: string, postgres: boolean): Promise<'missing' | 'valid' | 'invalid'> {
  if (!postgres) {
    const { rows } = await sql`select 1 from sqlite_master where type = 'index' and name = ${name}`.execute(db);
    return rows.length === 0 ? 'missing' : 'valid';
  }
  const { rows } = await sql<{ valid: boolean }>`
    select i.indisvalid as valid from pg_class c join pg_index i on i.indexrelid = c.oid
    where c.relname = ${name} and c.relnamespace = current_schema()::regnamespace`.execute(db);
  if (rows.length === 0) return 'missing';
  return rows[0]!.valid ? 'valid' : 'invalid';
}

/** Polls the build's progress every 2 s on another connection of the pool, until stopped. */
function watchProgress(db: Db, index: OnlineIndex, report: (progress: IndexProgress) => void): () => void {
  let stopped = false;
  const poll = async () => {
    while (!stopped) {
      await new Promise((resolve) => setTimeout(resolve, 2000).unref());
      if (stopped) return;
      const { rows } = await sql<{ phase: string; done: string | null; total: string | null }>`
        select phase,
               coalesce(nullif(blocks_total, 0), nullif(tuples_total, 0)) as total,
               case when blocks_total > 0 then blocks_done else tuples_done end as done
        from pg_stat_progress_create_index where relid = to_regclass(${index.table})`
        .execute(db)
        .catch(() => ({ rows: [] }));
      const row = rows[0];
      if (row && !stopped) {
        report({
          index: index.name,
          phase: row.phase,
          ...(row.total !== null ? { done: Number(row.done ?? 0), total: Number(row.total) } : {}),
        });
      }
    }
  };
  void poll();
  return () => {
    stopped = true;
  };
}
