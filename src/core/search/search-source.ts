import { sql, type AliasedRawBuilder, type RawBuilder } from 'kysely';
import type { Bound } from '../db/statement-cache.ts';
import { toFts5Match, toTsquery, type SearchExpression } from './web-search.ts';

/**
 * What a module declares of its full-text index (DECISIONS §14): names from code only, never from a
 * request. PostgreSQL: a side table holding each row's weighted `tsvector` (GIN index), 1:1 with the
 * table, so the table's own reads and writes never carry it; SQLite: an FTS5 external-content table
 * over the same fields, in this order. Both kept in step by triggers, each with a vocabulary of the
 * words indexed (suggestion.ts).
 */
export interface SearchSource {
  table: string;
  /** PostgreSQL: the side table `(id primary key references table, document tsvector)`. */
  documentTable: string;
  /** SQLite: the FTS5 table, its rowid the table's id. */
  ftsTable: string;
  /** PostgreSQL: a table of the words indexed (`word` column); SQLite: an `fts5vocab` table (`term` column). */
  wordsTable: { postgres: string; sqlite: string };
  /** The searched fields as a client names them (`highlight=`), in the FTS5 table's column order, with weights. */
  fields: Readonly<Record<string, { column: string; weight: 'A' | 'B' | 'C' }>>;
  /** The `q` the documents show (and /docs pre-fills): one that finds something in the demo data. */
  example: string;
}

/** The column every searched row carries its relevance in: higher is a better match. */
export const SCORE_COLUMN = 'search_score';

/** The text search configuration of documents and queries on PostgreSQL (the migrations use it too). */
export const TEXT_SEARCH_CONFIG = 'english';

/**
 * bm25 weights in the ratio of PostgreSQL's `ts_rank` defaults for A, B and C (1.0, 0.4, 0.2), so a
 * title match outweighs a content match on both databases. The scales of the scores still differ
 * (ts_rank is within 0..1, bm25 is not): a score only compares items of one list.
 */
const BM25_WEIGHT = { A: 10, B: 4, C: 2 } as const;

/** The bound text of a search in a dialect: a `to_tsquery` text or an FTS5 MATCH text (web-search.ts). */
export const searchTextOf = (expression: SearchExpression, postgres: boolean): string =>
  postgres ? toTsquery(expression) : toFts5Match(expression);

/** PostgreSQL's query of a bound text (`toTsquery`'s words are quoted: no text makes it fail). */
export const tsqueryOf = (text: Bound<unknown> | RawBuilder<unknown>) => sql`to_tsquery('english'::regconfig, ${text})`; // TEXT_SEARCH_CONFIG

/**
 * PostgreSQL: the matching documents alone, each id with its rank, under the table's name: a bounded
 * relevance page without other filters chooses its candidates from these and reads only its page's
 * rows of the table (core/querying/list-sql.ts).
 */
export function searchedDocuments(source: SearchSource, text: Bound<unknown>): AliasedRawBuilder<unknown, string> {
  const documents = sql.table(source.documentTable);
  const vector = sql.ref(`${source.documentTable}.document`);
  return sql`(select ${sql.ref(`${source.documentTable}.id`)} as ${sql.ref('id')},
      ts_rank(${vector}, ${tsqueryOf(text)})::float8 as ${sql.ref(SCORE_COLUMN)}
      from ${documents} where ${vector} @@ ${tsqueryOf(text)})`.as(source.table);
}

/**
 * The rows a search matches, each with its score, in place of the table (aliased as it): the list's
 * conditions, order and keyset then read its columns and `search_score` as the table's. `text` is the
 * bound search text (`searchTextOf`).
 */
export function searchedRows(
  source: SearchSource,
  postgres: boolean,
  text: Bound<unknown>,
): AliasedRawBuilder<unknown, string> {
  const table = sql.table(source.table);
  const id = sql.ref(`${source.table}.id`);
  if (postgres) {
    // Only the table's columns come out: the vector stays in the side table, read by the GIN index
    // and by the rank of the matching rows.
    const documents = sql.table(source.documentTable);
    const vector = sql.ref(`${source.documentTable}.document`);
    return sql`(select ${table}.*, ts_rank(${vector}, ${tsqueryOf(text)})::float8 as ${sql.ref(SCORE_COLUMN)}
      from ${table} join ${documents} on ${sql.ref(`${source.documentTable}.id`)} = ${id}
      where ${vector} @@ ${tsqueryOf(text)})`.as(source.table);
  }
  const fts = sql.table(source.ftsTable);
  const weights = Object.values(source.fields).map(({ weight }) => sql`${BM25_WEIGHT[weight]}`);
  return sql`(select ${table}.*, -bm25(${fts}, ${sql.join(weights)}) as ${sql.ref(SCORE_COLUMN)}
      from ${fts} join ${table} on ${id} = ${fts}.rowid where ${fts} match ${text})`.as(source.table);
}
