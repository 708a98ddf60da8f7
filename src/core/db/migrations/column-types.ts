import type { ColumnDefinitionBuilder, CreateTableBuilder, Kysely } from 'kysely';
import { dialectOf } from '../database.ts';

/** The few column types that differ between SQLite and PostgreSQL, named once. */
export function columnTypes(db: Kysely<unknown>) {
  const postgres = dialectOf(db) === 'postgres';
  return {
    timestamp: postgres ? ('timestamptz' as const) : ('text' as const),
    boolean: postgres ? ('boolean' as const) : ('integer' as const),
    bigint: postgres ? ('bigint' as const) : ('integer' as const),
    blob: postgres ? ('bytea' as const) : ('blob' as const),
    /** Ids only ever increase (AUTOINCREMENT on SQLite), which cursor pagination relies on. */
    id<T extends string>(table: CreateTableBuilder<T, never>): CreateTableBuilder<T, 'id'> {
      return table.addColumn('id', 'integer', (col: ColumnDefinitionBuilder) =>
        postgres ? col.primaryKey().generatedByDefaultAsIdentity() : col.primaryKey().autoIncrement(),
      );
    },
    falseValue: postgres ? 'false' : '0',
  };
}
