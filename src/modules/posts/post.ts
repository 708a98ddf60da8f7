import type { PostRow } from './posts.table.ts';

/** A post as the domain knows it (REST and GraphQL both present this). */
export interface Post {
  id: number;
  title: string;
  content: string;
  authorId: number;
  createdAt: string;
  updatedAt: string;
}

/** The column of each field: loaders read only the columns of the fields a GraphQL query selects. */
export const POST_COLUMN_OF = {
  id: 'id',
  title: 'title',
  content: 'content',
  authorId: 'author_id',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
} as const satisfies Record<keyof Post, keyof PostRow>;

export function toPost(row: PostRow): Post {
  return {
    id: row.id,
    title: row.title,
    content: row.content,
    authorId: row.author_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
