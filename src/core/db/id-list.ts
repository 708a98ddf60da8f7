import { sql, type RawBuilder, type SqlBool } from 'kysely';
import { dialectOf, type Db } from './database.ts';
import type { Bound } from './statement-cache.ts';

/**
 * A list of ids as a bound value: on PostgreSQL one parameter, the array text `{1,2,3}`, which
 * PostgreSQL reads as the column's array type (pg would build the same text from a JS array one
 * quoted, escaped element at a time, several strings per id; ids are integers, so
 * one join says it, and anything else is refused here rather than sent); on SQLite the ids
 * themselves, one parameter each. A `shapedStatement` param takes it as is.
 */
export type IdListParam = string | readonly number[];

export function idListParam(db: Db, ids: readonly number[]): IdListParam {
  if (dialectOf(db) !== 'postgres') return ids;
  for (const id of ids)
    if (!Number.isSafeInteger(id)) throw new TypeError(`columnIn: ${String(id)} is not an integer id`);
  return `{${ids.join(',')}}`;
}

/**
 * `column` is one of `ids` (an `idListParam`, or the bound params a `shapedStatement` build sees in
 * its place), as the batch reads of the GraphQL loaders ask it (authors by id, a level's posts or
 * comments by parent id).
 *
 * On PostgreSQL the ids travel as one array parameter, `column = any($1)`: the SQL text is the same
 * whatever the batch's size, so it becomes a named statement (pg-named-statements.ts) that PostgreSQL
 * parses and plans once per connection, where `column in ($1, ..., $n)` is a new text for every n and
 * was parsed and planned on every batch (several times per nested GraphQL answer). SQLite
 * binds no arrays: there it stays `in (...)` (its statements are cached by text, and cheap to plan).
 */
export function columnInParam(
  db: Db,
  column: string,
  ids: IdListParam | Bound<string> | readonly Bound<number>[],
): RawBuilder<SqlBool> {
  if (dialectOf(db) === 'postgres') return sql<SqlBool>`${sql.ref(column)} = any(${ids})`;
  return sql<SqlBool>`${sql.ref(column)} in (${sql.join([...(ids as readonly unknown[])])})`;
}
