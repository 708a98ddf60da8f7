import { defineListGrammar } from '../../core/querying/list-grammar.ts';

/**
 * What a client may filter and sort posts by (DECISIONS §12), declared once for `GET /posts`, a
 * user's posts and GraphQL's `posts`: the REST query schema, the parser and the SQL come from it
 * (core/querying). Newest first (by id, which grows with time: the seed's order) unless sorted
 * otherwise; ties break by id in the direction of the first key, so each single sort is one index read
 * forwards or backwards. `search` is the title or the content containing a text (`search=x` alone).
 * Indexes: posts.migrations.ts.
 */
export const POST_QUERY = defineListGrammar({
  resource: 'posts',
  tieBreak: 'follow',
  defaultSort: '-id',
  fields: {
    id: { column: 'id', type: 'integer', operators: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in'] },
    authorId: { column: 'author_id', type: 'integer', operators: ['eq', 'ne', 'in'] },
    title: { column: 'title', type: 'text' },
    createdAt: { column: 'created_at', type: 'timestamp' },
    search: {
      column: 'title',
      anyOfColumns: ['title', 'content'],
      type: 'text',
      operators: ['contains'],
      plainOperator: 'contains',
      sortable: false,
      description: 'the title or the content',
    },
  },
});
