import { defineListGrammar } from '../../core/querying/list-grammar.ts';

/**
 * What a client may filter and sort a post's comments by (DECISIONS §12), declared once: the REST
 * query schema, the parser and the SQL come from it (core/querying). Oldest first by id unless sorted
 * otherwise; ties break by ascending id. The post is the list's scope, set by the service. Indexes:
 * `(post_id, id)` of migration 0001 and those of comments.migrations.ts.
 */
export const COMMENT_QUERY = defineListGrammar({
  resource: 'comments',
  tieBreak: 'asc',
  fields: {
    id: { column: 'id', type: 'integer', operators: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in'] },
    authorId: { column: 'author_id', type: 'integer', operators: ['eq', 'ne', 'in'] },
    createdAt: { column: 'created_at', type: 'timestamp' },
  },
});

/**
 * The list of every comment (`GET /comments`, DECISIONS §20): the post's list's fields plus `postId`,
 * newest first (an admin console shows the latest first). Indexes: `(post_id, id)` and `(author_id, id)`
 * of migration 0001; `createdAt` follows the ids (comments are never back-dated), read through the primary key.
 */
export const ALL_COMMENTS_QUERY = defineListGrammar({
  resource: 'comments',
  tieBreak: 'follow',
  defaultSort: '-id',
  fields: {
    ...COMMENT_QUERY.fields,
    postId: { column: 'post_id', type: 'integer', operators: ['eq', 'ne', 'in'] },
  },
});
