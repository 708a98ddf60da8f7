import { sql, type ExpressionBuilder, type SqlBool } from 'kysely';
import type { Tables } from './tables.ts';

/**
 * The one way a client's text becomes a LIKE pattern (DECISIONS §13): `%`, `_` and the escape character
 * itself are escaped, so the text matches itself literally on SQLite and PostgreSQL. The statement must
 * say `escape '\'` (LIKE_ESCAPE_SQL); the pattern is always bound as a parameter, never spliced into SQL.
 */

/** The escape character of every LIKE the service builds. */
export const LIKE_ESCAPE = '\\';

/** A LIKE pattern matching any text that contains `text` literally. */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (char) => LIKE_ESCAPE + char)}%`;
}

/**
 * Rows of a stored JSON copy (`column`, text) that may hold a person's values (DECISIONS §19, erase): the
 * rows of their own resource (`resource = ownResource`, when the table keys copies so) and any whose text
 * contains one of `texts` as JSON writes it, each by the one pattern above (bound, escaped).
 */
export function jsonTextHoldingAny(column: string, texts: readonly string[], ownResource?: string) {
  return (eb: ExpressionBuilder<Tables, keyof Tables>) =>
    eb.or([
      ...(ownResource === undefined ? [] : [eb(sql.ref('resource'), '=', ownResource)]),
      ...texts.map(
        (text) =>
          sql<SqlBool>`${sql.ref(column)} like ${containsPattern(JSON.stringify(text).slice(1, -1))} escape '\\'`,
      ),
    ]);
}
