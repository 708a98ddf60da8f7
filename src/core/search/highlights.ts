import { sql } from 'kysely';
import { dialectOf, type Db } from '../db/database.ts';
import { searchTextOf, tsqueryOf, type SearchSource } from './search-source.ts';
import type { SearchExpression } from './web-search.ts';

/**
 * `_search.highlights` (DECISIONS §14): a field's text, HTML-escaped, with each matched term in
 * `<mark>`…`</mark>`, cut to about 30 words around the best match. Neither `ts_headline` nor FTS5's
 * `snippet` escapes HTML, so they wrap matches in two private-use characters instead of tags; the
 * whole text is escaped, and only then do those characters become the tags (`markedHtml`).
 * `ts_headline` also drops what its parser reads as an HTML tag or entity (`<script>` vanished from a
 * name), so on PostgreSQL `<`, `>` and `&` go in as private-use characters too and come back as themselves.
 */

const OPEN = '\uE000';
const CLOSE = '\uE001';
/** About 30 words around the best match (DECISIONS §14). */
const WINDOW_WORDS = 30;
const HEADLINE_OPTIONS = `StartSel=${OPEN}, StopSel=${CLOSE}, MaxWords=${WINDOW_WORDS}, MinWords=15, ShortWord=3`;

/** `<`, `>` and `&` as PostgreSQL's headline reads them (its parser would drop tags and entities). */
const HIDDEN = { '<': '\uE002', '>': '\uE003', '&': '\uE004' } as const;
const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  [HIDDEN['<']]: '&lt;',
  [HIDDEN['>']]: '&gt;',
  [HIDDEN['&']]: '&amp;',
};

/**
 * The text escaped for HTML, its marked spans in `<mark>` tags. The marks are kept balanced whatever
 * the text holds (a stored text may itself contain the private-use characters): a stray opening one
 * inside a span or a stray closing one outside is dropped, and a span left open is closed.
 */
export function markedHtml(text: string): string {
  let open = false;
  let html = '';
  for (const char of text) {
    if (char === OPEN) {
      if (!open) html += '<mark>';
      open = true;
    } else if (char === CLOSE) {
      if (open) html += '</mark>';
      open = false;
    } else html += ESCAPES[char] ?? char;
  }
  return open ? `${html}</mark>` : html;
}

/** The highlights of `fields` (names of `source.fields`) of the rows `ids`, in one statement. */
export async function readHighlights(
  db: Db,
  source: SearchSource,
  expression: SearchExpression,
  ids: readonly number[],
  fields: readonly string[],
): Promise<Map<number, Record<string, string>>> {
  const byId = new Map<number, Record<string, string>>();
  if (ids.length === 0 || fields.length === 0) return byId;
  const postgres = dialectOf(db) === 'postgres';
  const text = searchTextOf(expression, postgres);
  const names = Object.keys(source.fields);
  const aliases = fields.map((_, index) => sql.ref(`h${index}`));
  const idList = sql.join(ids.map((id) => sql`${id}`));
  const columns = fields.map((field, index) => {
    const { column } = source.fields[field]!;
    return postgres
      ? sql`ts_headline('english'::regconfig, translate(coalesce(${sql.ref(column)}, ''), '<>&', ${Object.values(HIDDEN).join('')}), ${tsqueryOf(
          sql`${text}`,
        )}, ${HEADLINE_OPTIONS}) as ${aliases[index]}`
      : sql`snippet(${sql.table(source.ftsTable)}, ${names.indexOf(field)}, ${OPEN}, ${CLOSE}, '…', ${WINDOW_WORDS}) as ${aliases[index]}`;
  });
  const query = postgres
    ? sql<
        Record<string, unknown>
      >`select id, ${sql.join(columns)} from ${sql.table(source.table)} where id in (${idList})`
    : sql<Record<string, unknown>>`select rowid as id, ${sql.join(columns)} from ${sql.table(source.ftsTable)}
        where ${sql.table(source.ftsTable)} match ${text} and rowid in (${idList})`;
  const { rows } = await query.execute(db);
  for (const row of rows) {
    const highlights: Record<string, string> = {};
    fields.forEach((field, index) => (highlights[field] = markedHtml(String(row[`h${index}`] ?? ''))));
    byId.set(Number(row.id), highlights);
  }
  return byId;
}
