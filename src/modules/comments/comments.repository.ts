import type { Insertable } from 'kysely';
import { dialectOf, type Db } from '../../core/db/database.ts';
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

const ALL_COMMENT_COLUMNS = ['id', 'post_id', 'author_id', 'text', 'created_at'] as const satisfies readonly (keyof CommentRow)[];

/**
 * The first comments of each post in one statement (GraphQL's `Post.comments` loader): a window
 * numbers each post's comments, oldest first, and the page is cut per post. PostgreSQL stops each
 * window early (a run condition) and reads whole rows; SQLite numbers whole rows slowly (2 ms for the
 * 100 posts of bench W3), so there the window runs over the `(post_id, id)` index alone and only
 * the page's rows are read by primary key (1 ms). On PostgreSQL that form picks a hash join instead.
 * Only `columns` are read (GraphQL asks for the columns of the fields a query selects).
 */
export function listCommentsOfPosts(
  db: Db,
  postIds: readonly number[],
  window: { limit: number; offset: number },
  columns: readonly (keyof CommentRow)[] = ALL_COMMENT_COLUMNS,
): Promise<CommentRow[]> {
  if (postIds.length === 0) return Promise.resolve([]);
  const numbered = db
    .selectFrom('comments')
    .select((eb) => eb.fn.agg<number>('row_number').over((over) => over.partitionBy('post_id').orderBy('id', 'asc')).as('rn'))
    .where('post_id', 'in', postIds);
  const first = window.offset;
  const last = window.offset + window.limit;
  const page =
    dialectOf(db) === 'postgres'
      ? db
          .selectFrom(numbered.select(columns).as('ranked'))
          .select(columns)
          .where('rn', '>', first)
          .where('rn', '<=', last)
          .orderBy('post_id')
          .orderBy('id', 'asc')
      : db
          .selectFrom('comments')
          .select(columns)
          .where('id', 'in', db.selectFrom(numbered.select('id').as('ranked')).select('id').where('rn', '>', first).where('rn', '<=', last))
          .orderBy('post_id')
          .orderBy('id', 'asc');
  return page.execute() as Promise<CommentRow[]>;
}

export function insertComment(db: Db, row: Insertable<CommentsTable>): Promise<CommentRow> {
  return db.insertInto('comments').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function deleteCommentById(db: Db, id: number): Promise<boolean> {
  const result = await db.deleteFrom('comments').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
