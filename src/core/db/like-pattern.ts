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
