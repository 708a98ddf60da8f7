import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import type { SearchSource } from './search-source.ts';
import type { SearchExpression, SearchTerm } from './web-search.ts';

/**
 * SQLite's estimate of a search's matches from its index (DECISIONS §12 `count=estimated`, §14
 * "Cost"): SQLite has no planner's estimate, and counting a common word's matches reads every one.
 * The vocabulary (`fts5vocab` over the unstemmed words) holds, per word, how many rows contain it:
 * a row matches an alternative only if it has each required word, so an alternative matches at most
 * as many rows as its rarest word, and the search at most the alternatives' sum. Stemming makes the
 * real figure larger (`chairs` matches `chair`), excluded words smaller: an estimate, said as one.
 * Reads one vocabulary row per word, or up to PREFIX_TERMS rows for a prefix.
 */
const PREFIX_TERMS = 200;

async function rowsWith(db: Db, source: SearchSource, word: string, prefix: boolean): Promise<number> {
  const vocabulary = sql.table(source.wordsTable.sqlite);
  if (!prefix) {
    const { rows } = await sql<{
      n: number | null;
    }>`select max(doc) as n from ${vocabulary} where term = ${word}`.execute(db);
    return Number(rows[0]?.n ?? 0);
  }
  const last = word.codePointAt(word.length - 1)!;
  const after = word.slice(0, -String.fromCodePoint(last).length) + String.fromCodePoint(last + 1);
  const { rows } = await sql<{ n: number | null }>`select sum(doc) as n from (select doc from ${vocabulary}
    where term >= ${word} and term < ${after} limit ${PREFIX_TERMS})`.execute(db);
  return Number(rows[0]?.n ?? 0);
}

async function termRows(db: Db, source: SearchSource, term: SearchTerm): Promise<number> {
  let fewest = Infinity;
  for (const [index, word] of term.words.entries()) {
    fewest = Math.min(fewest, await rowsWith(db, source, word, term.prefix && index === term.words.length - 1));
  }
  return fewest;
}

/** At most how many rows the search matches, by the vocabulary (SQLite only). */
export async function vocabularyEstimate(db: Db, source: SearchSource, expression: SearchExpression): Promise<number> {
  let total = 0;
  for (const group of expression.groups) {
    let fewest = Infinity;
    for (const term of group) if (!term.negated) fewest = Math.min(fewest, await termRows(db, source, term));
    total += Number.isFinite(fewest) ? fewest : 0;
  }
  return total;
}
