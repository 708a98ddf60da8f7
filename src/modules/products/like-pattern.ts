/** The escape character of every LIKE the products repository builds (`... ESCAPE '\'`). */
export const LIKE_ESCAPE = '\\';

/**
 * A LIKE pattern matching names that contain `text` literally: `%`, `_` and `\` in the text are
 * escaped so they match themselves on both SQLite and PostgreSQL. The result is always bound as a
 * parameter, never spliced into SQL.
 */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (char) => LIKE_ESCAPE + char)}%`;
}
