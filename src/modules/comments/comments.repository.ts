import type { Insertable } from 'kysely';
import type { Db } from '../../core/db/database.ts';
import type { CommentsTable } from '../../core/db/tables.ts';
import type { CommentRow } from './comment.ts';

/** All SQL of comments. Lists are oldest first by id (ids grow with time and never tie). */

export function findCommentById(db: Db, id: number): Promise<CommentRow | undefined> {
  return db.selectFrom('comments').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findCommentsByIds(db: Db, ids: readonly number[]): Promise<CommentRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db.selectFrom('comments').selectAll().where('id', 'in', ids).execute();
}

export function listCommentsOfPost(db: Db, postId: number, window: { limit: number; offset: number }): Promise<CommentRow[]> {
  return db
    .selectFrom('comments')
    .selectAll()
    .where('post_id', '=', postId)
    .orderBy('id', 'asc')
    .limit(window.limit)
    .offset(window.offset)
    .execute();
}

export async function countCommentsOfPost(db: Db, postId: number): Promise<number> {
  const row = await db
    .selectFrom('comments')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('post_id', '=', postId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** The first comments of each post in one statement (GraphQL's `Post.comments` loader). */
export function listCommentsOfPosts(db: Db, postIds: readonly number[], window: { limit: number; offset: number }): Promise<CommentRow[]> {
  if (postIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom((eb) =>
      eb
        .selectFrom('comments')
        .selectAll()
        .select((eb) => eb.fn.agg<number>('row_number').over((over) => over.partitionBy('post_id').orderBy('id', 'asc')).as('rn'))
        .where('post_id', 'in', postIds)
        .as('ranked'),
    )
    .select(['id', 'post_id', 'author_id', 'text', 'created_at'])
    .where('rn', '>', window.offset)
    .where('rn', '<=', window.offset + window.limit)
    .orderBy('post_id')
    .orderBy('id', 'asc')
    .execute();
}

export function insertComment(db: Db, row: Insertable<CommentsTable>): Promise<CommentRow> {
  return db.insertInto('comments').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function deleteCommentById(db: Db, id: number): Promise<boolean> {
  const result = await db.deleteFrom('comments').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
