import type { SearchSource } from '../../core/search/search-source.ts';

/**
 * The posts' full-text search (DECISIONS §14): title (weight A) and content (B). PostgreSQL:
 * `post_search` (GIN), words in `post_search_words`; SQLite: `posts_fts`, its vocabulary
 * `posts_fts_vocab`. Built by migration 0016 (posts.migrations.ts).
 */
export const POST_SEARCH: SearchSource = {
  table: 'posts',
  documentTable: 'post_search',
  ftsTable: 'posts_fts',
  wordsTable: { postgres: 'post_search_words', sqlite: 'posts_fts_vocab' },
  fields: {
    title: { column: 'title', weight: 'A' },
    content: { column: 'content', weight: 'B' },
  },
  example: 'caching or pagination -graphql',
};
