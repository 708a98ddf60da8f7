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

/** Posts per author, and all posts under author 0 (posts.counters.migration.ts). */
export interface PostCountsTable {
  author_id: number;
  n: number | string;
}

declare module '../../core/db/tables.ts' {
  interface Tables {
    posts: PostsTable;
    post_counts: PostCountsTable;
  }
}

export type PostRow = Selectable<PostsTable>;
