import type { CommentRow } from './comments.table.ts';

/** A comment as the domain knows it. Comments are never edited, so there is no updatedAt. */
export interface Comment {
  id: number;
  postId: number;
  authorId: number;
  text: string;
  createdAt: string;
}

/** The column of each field: loaders read only the columns of the fields a GraphQL query selects. */
export const COMMENT_COLUMN_OF = {
  id: 'id',
  postId: 'post_id',
  authorId: 'author_id',
  text: 'text',
  createdAt: 'created_at',
} as const satisfies Record<keyof Comment, keyof CommentRow>;

export function toComment(row: CommentRow): Comment {
  return { id: row.id, postId: row.post_id, authorId: row.author_id, text: row.text, createdAt: row.created_at };
}
