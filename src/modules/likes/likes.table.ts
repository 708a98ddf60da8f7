import type { Selectable } from 'kysely';
import type { Timestamp } from '../../core/db/tables.ts';

/**
 * The comment_likes table and its row type, in the database's own snake_case
 * (only repositories see rows). They join the database type `Tables` of core/db/tables.ts below.
 */
export interface CommentLikesTable {
  comment_id: number;
  user_id: number;
  created_at: Timestamp;
}

declare module '../../core/db/tables.ts' {
  interface Tables {
    comment_likes: CommentLikesTable;
  }
}

export type LikeRow = Selectable<CommentLikesTable>;
