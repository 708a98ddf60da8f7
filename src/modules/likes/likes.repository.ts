import type { Db } from '../../core/db/database.ts';
import type { LikeRow } from './likes.table.ts';

/** All SQL of comment likes. The primary key (comment_id, user_id) makes a like unique. */

export function listLikesOfComment(
  db: Db,
  commentId: number,
  window: { limit: number; offset: number },
): Promise<LikeRow[]> {
  return db
    .selectFrom('comment_likes')
    .selectAll()
    .where('comment_id', '=', commentId)
    .orderBy('created_at', 'asc')
    .orderBy('user_id', 'asc')
    .limit(window.limit)
    .offset(window.offset)
    .execute();
}

export async function countLikesOfComment(db: Db, commentId: number): Promise<number> {
  const row = await db
    .selectFrom('comment_likes')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('comment_id', '=', commentId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export function findLike(db: Db, commentId: number, userId: number): Promise<LikeRow | undefined> {
  return db
    .selectFrom('comment_likes')
    .selectAll()
    .where('comment_id', '=', commentId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
}

/**
 * Inserts the like unless the pair exists; returns the new row, or undefined when it was already there.
 * The database decides concurrent duplicates (ON CONFLICT DO NOTHING waits for the other insert).
 */
export function insertLikeIfAbsent(db: Db, row: LikeRow): Promise<LikeRow | undefined> {
  return db
    .insertInto('comment_likes')
    .values(row)
    .onConflict((conflict) => conflict.columns(['comment_id', 'user_id']).doNothing())
    .returningAll()
    .executeTakeFirst();
}

export async function deleteLike(db: Db, commentId: number, userId: number): Promise<boolean> {
  const result = await db
    .deleteFrom('comment_likes')
    .where('comment_id', '=', commentId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
