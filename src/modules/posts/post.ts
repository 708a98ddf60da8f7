import type { Selectable } from 'kysely';
import type { PostsTable } from '../../core/db/tables.ts';

export type PostRow = Selectable<PostsTable>;

/** A post as the domain knows it (REST and GraphQL both present this). */
export interface Post {
  id: number;
  title: string;
  content: string;
  authorId: number;
  createdAt: string;
  updatedAt: string;
}

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
