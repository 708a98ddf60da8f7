import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { Kysely, PostgresAdapter, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { openSqlite } from './sqlite-adapter.ts';
import type { Tables } from './tables.ts';

/** The query layer every repository receives: the database itself or a transaction of it. */
export type Db = Kysely<Tables>;
export type DialectName = 'sqlite' | 'postgres';

export interface DatabaseOptions {
  poolSize?: number;
}

/** Builds the database from a URL: `sqlite:<path>`, `sqlite::memory:` or `postgres://...`. */
export function createDatabase(url: string, options: DatabaseOptions = {}): Db {
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    const pool = new pg.Pool({
      connectionString: url,
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: 5000,
      types: { getTypeParser },
    });
    // An idle client losing its server must not crash the process; the next query reports it.
    pool.on('error', () => {});
    return new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) });
  }
  const path = url.replace(/^sqlite:/, '');
  const file = path === ':memory:' ? ':memory:' : path;
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  return new Kysely<Tables>({ dialect: new SqliteDialect({ database: openSqlite(file) }) });
}

export function dialectOf(db: { getExecutor(): { adapter: unknown } }): DialectName {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

const INT8 = 20;
const TIMESTAMPTZ = 1184;

/** Counts come back as numbers and timestamps as the same ISO strings SQLite stores. */
function getTypeParser(oid: number, format?: 'text' | 'binary'): (value: string) => unknown {
  if (oid === INT8) return Number;
  if (oid === TIMESTAMPTZ) return (value: string) => new Date(value).toISOString();
  return pg.types.getTypeParser(oid, format ?? 'text') as (value: string) => unknown;
}
