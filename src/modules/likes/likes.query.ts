import { defineListGrammar } from '../../core/querying/list-grammar.ts';

/**
 * What a client may filter and sort a comment's likes by (DECISIONS §12), declared once (core/querying).
 * Oldest first unless sorted otherwise; a like has no id of its own, so ties break by the user's id,
 * unique within the comment (the list's scope, set by the service). Indexes: the primary key
 * `(comment_id, user_id)` and likes.migrations.ts's `(comment_id, created_at, user_id)`.
 */
export const LIKE_QUERY = defineListGrammar({
  resource: 'likes',
  tieBreak: 'asc',
  tieField: 'userId',
  defaultSort: 'createdAt',
  fields: {
    userId: { column: 'user_id', type: 'integer', operators: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in'] },
    createdAt: { column: 'created_at', type: 'timestamp' },
  },
});

/** The column that breaks ties and ends every cursor. */
export const LIKE_TIE_COLUMN = 'user_id';
