import { sql } from 'kysely';
import { dialectOf, type Db } from '../db/database.ts';
import type { SearchSource } from './search-source.ts';
import { toWebSearch, type SearchExpression } from './web-search.ts';

/**
 * `suggestion` of a search that matched nothing (DECISIONS §14): the query with each word to find
 * replaced by the closest word the database has indexed, at most two edits away (one for a word of
 * four letters or fewer, where two edits reach almost any word). The vocabulary is kept by the
 * database itself: on PostgreSQL a words table its trigger fills, on SQLite an `fts5vocab` table.
 *
 * The work is bounded: candidates share the word's first letter and are within two letters of its
 * length, at most MAX_CANDIDATES of them per word, read from the vocabulary's index by range; a typo in
 * the first letter is not corrected.
 */

const MAX_CANDIDATES = 2000;

/** Optimal-string-alignment distance (a swap of two neighbours is one edit), or `limit + 1` once beyond it. */
export function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, before[j - 2]! + 1);
      current.push(value);
      best = Math.min(best, value);
    }
    if (best > limit) return limit + 1;
    before = previous;
    previous = current;
  }
  return previous[b.length]!;
}

const limitOf = (word: string) => ([...word].length <= 4 ? 1 : 2);

/** The closest of `candidates` to `word` within its limit (the word itself when indexed); ties by text. */
export function closestWord(word: string, candidates: readonly string[]): string | undefined {
  let best: { word: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = candidate === word ? 0 : editDistance(word, candidate, limitOf(word));
    if (distance > limitOf(word)) continue;
    if (!best || distance < best.distance || (distance === best.distance && candidate < best.word)) {
      best = { word: candidate, distance };
    }
  }
  return best?.word;
}

async function candidatesOf(db: Db, source: SearchSource, word: string): Promise<string[]> {
  const first = String.fromCodePoint(word.codePointAt(0)!);
  const after = String.fromCodePoint(word.codePointAt(0)! + 1);
  const length = word.length;
  const postgres = dialectOf(db) === 'postgres';
  const column = sql.ref(postgres ? 'word' : 'term');
  const table = sql.table(postgres ? source.wordsTable.postgres : source.wordsTable.sqlite);
  const { rows } = await sql<{ word: string }>`select ${column} as word from ${table}
    where ${column} >= ${first} and ${column} < ${after} and length(${column}) between ${length - 2} and ${length + 2}
    limit ${MAX_CANDIDATES}`.execute(db);
  return rows.map((row) => row.word);
}

/**
 * The search rewritten with the closest indexed words, or null when no word changes (every word is
 * indexed, or none has an indexed word close enough). Excluded words and prefixes are kept as written.
 */
export async function suggestSearch(
  db: Db,
  source: SearchSource,
  expression: SearchExpression,
): Promise<string | null> {
  let changed = false;
  const groups = [];
  for (const terms of expression.groups) {
    const rewritten = [];
    for (const term of terms) {
      if (term.negated) {
        rewritten.push(term);
        continue;
      }
      const words = [];
      for (const [index, word] of term.words.entries()) {
        const fixed =
          term.prefix && index === term.words.length - 1
            ? word
            : closestWord(word, await candidatesOf(db, source, word));
        if (fixed !== undefined && fixed !== word) changed = true;
        words.push(fixed ?? word);
      }
      rewritten.push({ ...term, words });
    }
    groups.push(rewritten);
  }
  return changed ? toWebSearch({ groups }) : null;
}
