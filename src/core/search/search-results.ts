import { commaListPattern, oneOfPattern } from '../validation/comma-list-patterns.ts';
import { Type } from 'typebox';
import type { Db } from '../db/database.ts';
import { AppError } from '../errors/app-error.ts';
import { Nullable } from '../http/schemas.ts';
import type { ListQuery } from '../querying/list-query-parse.ts';
import { readHighlights } from './highlights.ts';
import { SCORE_COLUMN, type SearchSource } from './search-source.ts';
import { suggestSearch } from './suggestion.ts';
import { MAX_SEARCH_TEXT, parseWebSearch, type SearchExpression } from './web-search.ts';

/**
 * What a searched list adds to its page (DECISIONS §14): the `q` and `highlight` parameters, each item's
 * `_search` (score, highlights) and the page's `suggestion`. A module declares its `SearchSource`; its
 * service reads the parameters (`readSearchParameters`) and the page's extras (`searchResultsOf`).
 */

export interface SearchHit {
  score: number;
  highlights?: Record<string, string>;
}

/** Per item of a searched page, in the page's order; `suggestion` when the search matched nothing. */
export interface SearchResults {
  hits: SearchHit[];
  suggestion?: string | null;
}

/** `q` and `highlight`, to spread into a list's query schema. */
export function searchParameters(source: SearchSource) {
  const fields = Object.keys(source.fields).join(', ');
  return {
    q: Type.Optional(
      Type.String({
        maxLength: MAX_SEARCH_TEXT,
        description:
          'Full-text search: words (all must match, English stemming), "a phrase", word* (prefix), -word (exclude), `or` between alternatives. Sorted by relevance unless `sort` names another order',
        examples: [source.example],
      }),
    ),
    highlight: Type.Optional(
      Type.String({
        maxLength: 200,
        // As readSearchParameters reads it: each item trimmed and a searched field (a repeat counts once).
        pattern: commaListPattern(oneOfPattern(Object.keys(source.fields))),
        description: `With q: comma list of searched fields (${fields}) whose text comes back in \`_search.highlights\`, HTML-escaped, matches in <mark>`,
      }),
    ),
  };
}

/** `_search` of a list item. */
export function searchHitProperty(source: SearchSource, name: string) {
  const highlights = Object.fromEntries(
    Object.keys(source.fields).map((field) => [field, Type.Optional(Type.String())]),
  );
  return {
    _search: Type.Optional(
      Type.Object(
        {
          score: Type.Number({ description: 'Relevance: higher is better; compare only within one list' }),
          highlights: Type.Optional(Type.Object(highlights, { additionalProperties: false })),
        },
        { title: name, additionalProperties: false },
      ),
    ),
  };
}

/** `suggestion` of a searched page. */
export const SuggestionProperty = {
  suggestion: Type.Optional(
    Nullable(
      Type.String({
        description:
          'With q matching nothing: the query with each word replaced by the closest indexed word (at most two edits), or null',
      }),
    ),
  ),
};

/** A searched row's score (its `search_score`), or undefined for a row read without a search. */
export function scoreOf(row: object): number | undefined {
  const score = (row as Record<string, unknown>)[SCORE_COLUMN];
  return score === undefined || score === null ? undefined : Number(score);
}

/** The request's `q` (read) and `highlight` (checked against the searched fields): 422s name them. */
export function readSearchParameters(
  source: SearchSource,
  q: string | undefined,
  highlight: string | undefined,
): { search?: SearchExpression; highlight: string[] } {
  const fields = highlight === undefined ? [] : [...new Set(highlight.split(',').map((field) => field.trim()))];
  const unknown = fields.filter((field) => !Object.hasOwn(source.fields, field));
  if (unknown.length > 0) {
    const known = Object.keys(source.fields).join(', ');
    throw AppError.validation([{ field: 'highlight', message: `unknown field "${unknown[0]}"; fields: ${known}` }]);
  }
  if (q === undefined) {
    if (fields.length > 0) throw AppError.validation([{ field: 'highlight', message: 'applies only with q' }]);
    return { highlight: [] };
  }
  return { search: parseWebSearch(q), highlight: fields };
}

/**
 * The extras of a searched page: each row's score (read with the page), the highlights asked for (one
 * statement for the page), and, when a first page matched nothing, a suggestion.
 */
export async function searchResultsOf(
  db: Db,
  source: SearchSource,
  query: ListQuery,
  rows: readonly { id: number }[],
  highlight: readonly string[],
): Promise<SearchResults | undefined> {
  const { search } = query;
  if (!search) return undefined;
  const highlights = await readHighlights(
    db,
    source,
    search,
    rows.map((row) => row.id),
    highlight,
  );
  const hits = rows.map((row) => {
    const marked = highlights.get(row.id);
    return {
      score: scoreOf(row) ?? 0,
      ...(marked ? { highlights: marked } : {}),
    };
  });
  if (rows.length > 0 || query.cursor !== undefined) return { hits };
  return { hits, suggestion: search.groups.length === 0 ? null : await suggestSearch(db, source, search) };
}
