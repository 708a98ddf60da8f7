import { AppError } from '../errors/app-error.ts';
import { ENGLISH_STOP_WORDS } from './stop-words.ts';

/**
 * The web-search syntax of `q` (DECISIONS §14), read once here for both databases: words (all must
 * match), `"a phrase"`, `word*` (prefix), `-word` (exclude) and `or` between alternatives. The client's
 * text never reaches a database as syntax: it is cut into words made only of letters, digits and marks
 * (`\p{L}\p{N}\p{M}`), and each database's expression is assembled from those words and operators of
 * this file (`toTsquery`, `toFts5Match`), then bound as a parameter. Any other character (`:`, `^`,
 * `(`, NUL, a lone surrogate...) only separates words, so no text gives a syntax error.
 */

/** One clause: a word, or several words in a row (a phrase), possibly a prefix, possibly excluded. */
export interface SearchTerm {
  /** Lower-case words of letters, digits and marks only; one for a word, more for a phrase. */
  words: readonly string[];
  /** The last word matches as a prefix (`word*`, `"a phras"*`). */
  prefix: boolean;
  negated: boolean;
}

/** Alternatives (`or`), each a list of terms that must all hold; each has at least one term not excluded. */
export interface SearchExpression {
  groups: readonly (readonly SearchTerm[])[];
}

/** The longest `q` (the query schemas' `maxLength`; a longer one is a 422 naming `q`). */
export const MAX_SEARCH_TEXT = 200;
/** The most terms a `q` may hold, all alternatives together. */
export const MAX_SEARCH_TERMS = 16;

const WORD = /[\p{L}\p{N}\p{M}]+/gu;
const refused = (message: string) => AppError.validation([{ field: 'q', message }]);

const wordsOf = (text: string): string[] => (text.toLowerCase().match(WORD) ?? []).slice(0, MAX_SEARCH_TERMS);

/**
 * A term as both engines read it: stop words dropped from a single word, and from both ends of a
 * phrase (PostgreSQL keeps only their positions inside one). Undefined when nothing is left.
 */
function termOf(words: string[], prefix: boolean, negated: boolean): SearchTerm | undefined {
  let kept = words;
  while (kept.length > 0 && ENGLISH_STOP_WORDS.has(kept[0]!)) kept = kept.slice(1);
  while (kept.length > 0 && ENGLISH_STOP_WORDS.has(kept.at(-1)!)) {
    kept = kept.slice(0, -1);
    prefix = false;
  }
  return kept.length === 0 ? undefined : { words: kept, prefix, negated };
}

/**
 * Reads `q`. A text with no word to find (only punctuation, only stop words) gives no groups: the list
 * is empty then. Excluding words without any to find (`-chair`), or more than MAX_SEARCH_TERMS terms, is
 * a 422 naming `q`.
 */
export function parseWebSearch(text: string): SearchExpression {
  const groups: SearchTerm[][] = [];
  let group: SearchTerm[] = [];
  let count = 0;
  const add = (term: SearchTerm | undefined) => {
    if (!term) return;
    if (++count > MAX_SEARCH_TERMS) throw refused(`may hold at most ${MAX_SEARCH_TERMS} words and phrases`);
    group.push(term);
  };
  let at = 0;
  while (at < text.length) {
    const char = text[at]!;
    if (/\s/u.test(char)) {
      at++;
      continue;
    }
    const negated = char === '-' && text[at + 1] !== undefined && !/\s/u.test(text[at + 1]!);
    const start = negated ? at + 1 : at;
    if (text[start] === '"') {
      const close = text.indexOf('"', start + 1);
      const end = close === -1 ? text.length : close;
      const prefix = text[end + 1] === '*';
      add(termOf(wordsOf(text.slice(start + 1, end)), prefix, negated));
      at = end + (prefix ? 2 : 1);
      continue;
    }
    let end = start;
    while (end < text.length && text[end] !== '"' && !/\s/u.test(text[end]!)) end++;
    const chunk = text.slice(start, end);
    at = end;
    if (!negated && chunk.toLowerCase() === 'or') {
      if (group.length > 0) groups.push(group);
      group = [];
      continue;
    }
    add(termOf(wordsOf(chunk), chunk.endsWith('*'), negated));
  }
  if (group.length > 0) groups.push(group);
  if (groups.some((terms) => terms.every((term) => term.negated))) {
    throw refused('excludes words without a word to find: add one (`chair -wooden`)');
  }
  return { groups };
}

export const isEmptySearch = (expression: SearchExpression): boolean => expression.groups.length === 0;

/**
 * The expression as PostgreSQL's `to_tsquery` text: each word single-quoted (a word holds no quote nor
 * operator), `:*` for a prefix, `<->` between a phrase's words, `!`, `&` and `|`. Bound as a parameter.
 */
export function toTsquery(expression: SearchExpression): string {
  const term = ({ words, prefix, negated }: SearchTerm) => {
    const quoted = words.map((word, index) => `'${word}'${prefix && index === words.length - 1 ? ':*' : ''}`);
    const text = quoted.length === 1 ? quoted[0]! : `(${quoted.join(' <-> ')})`;
    return negated ? `!${text}` : text;
  };
  return expression.groups.map((terms) => `(${terms.map(term).join(' & ')})`).join(' | ');
}

/**
 * The expression as an FTS5 MATCH text: each word or phrase double-quoted (a word holds no quote; FTS5
 * reads a quoted string as words only, never as an operator or a column), `*` after it for a prefix,
 * `AND`, `NOT` and `OR` between. Bound as a parameter.
 */
export function toFts5Match(expression: SearchExpression): string {
  const quoted = ({ words, prefix }: SearchTerm) => `"${words.join(' ').replaceAll('"', '""')}"${prefix ? '*' : ''}`;
  return expression.groups
    .map((terms) => {
      let text = `(${terms
        .filter((term) => !term.negated)
        .map(quoted)
        .join(' AND ')})`;
      for (const term of terms.filter((t) => t.negated)) text = `(${text} NOT ${quoted(term)})`;
      return text;
    })
    .join(' OR ');
}

/** The expression written back in the web-search syntax: the fingerprint of a cursor, the form of a suggestion. */
export function toWebSearch(expression: SearchExpression): string {
  const term = ({ words, prefix, negated }: SearchTerm) =>
    `${negated ? '-' : ''}${words.length > 1 ? `"${words.join(' ')}"` : words[0]}${prefix ? '*' : ''}`;
  return expression.groups.map((terms) => terms.map(term).join(' ')).join(' or ');
}
