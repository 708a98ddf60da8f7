import type { LikeRow } from './likes.table.ts';

/** A user likes a comment at most once: the pair (commentId, userId) is the like's identity. */
export interface Like {
  commentId: number;
  userId: number;
  createdAt: string;
}

export function toLike(row: LikeRow): Like {
  return { commentId: row.comment_id, userId: row.user_id, createdAt: row.created_at };
}
