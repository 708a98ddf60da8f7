import { sql, type RawBuilder, type SqlBool } from 'kysely';
import { dialectOf, type Db } from './database.ts';

/**
 * `column` is one of `ids`, as the batch reads of the GraphQL loaders ask it (authors by id, a level's
 * posts or comments by parent id).
 *
 * On PostgreSQL the ids travel as one array parameter, `column = any($1)`: the SQL text is the same
 * whatever the batch's size, so it becomes a named statement (pg-named-statements.ts) that PostgreSQL
 * parses and plans once per connection, where `column in ($1, ..., $n)` is a new text for every n and
 * was parsed and planned on every batch (four times per nested W3 answer, bench/RESULTS.md). SQLite
 * binds no arrays: there it stays `in (...)` (its statements are cached by text, and cheap to plan).
 */
export function columnIn(db: Db, column: string, ids: readonly number[]): RawBuilder<SqlBool> {
  if (dialectOf(db) === 'postgres') return sql<SqlBool>`${sql.ref(column)} = any(${[...ids]})`;
  return sql<SqlBool>`${sql.ref(column)} in (${sql.join([...ids])})`;
}
