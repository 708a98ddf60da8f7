import type { Generated, Selectable } from 'kysely';
import type { Timestamp } from '../../core/db/tables.ts';

/**
 * The posts table and its row type, in the database's own snake_case
 * (only repositories see rows). They join the database type `Tables` of core/db/tables.ts below.
 */
export interface PostsTable {
  id: Generated<number>;
  author_id: number;
  title: string;
  content: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

declare module '../../core/db/tables.ts' {
  interface Tables {
    posts: PostsTable;
  }
}

export type PostRow = Selectable<PostsTable>;
