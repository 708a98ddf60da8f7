import type { Generated, Selectable } from 'kysely';
import type { Timestamp } from '../../core/db/tables.ts';

/**
 * The comments table and its row type, in the database's own snake_case
 * (only repositories see rows). They join the database type `Tables` of core/db/tables.ts below.
 */
export interface CommentsTable {
  id: Generated<number>;
  post_id: number;
  author_id: number;
  text: string;
  created_at: Timestamp;
}

declare module '../../core/db/tables.ts' {
  interface Tables {
    comments: CommentsTable;
  }
}

export type CommentRow = Selectable<CommentsTable>;
