import type { Db } from '../../core/db/database.ts';
import type { PageWindow } from '../../core/pagination.ts';
import { readQueriedPage, type QueriedPage } from '../../core/querying/list-page.ts';
import type { ListQuery } from '../../core/querying/list-query-parse.ts';
import { createListStatements, listColumnsOf } from '../../core/querying/list-sql.ts';
import { LIKE_QUERY, LIKE_TIE_COLUMN } from './likes.query.ts';
import type { LikeRow } from './likes.table.ts';

/** All SQL of comment likes. The primary key (comment_id, user_id) makes a like unique. */

const likeList = createListStatements<LikeRow>(
  'comment_likes',
  listColumnsOf([LIKE_QUERY], LIKE_TIE_COLUMN, 'comment_id'),
);

/** One page of a comment's likes as the request's grammar reads it (its scope names the comment). */
export function readLikePage(db: Db, query: ListQuery, window: PageWindow): Promise<QueriedPage<LikeRow>> {
  return readQueriedPage(db, LIKE_QUERY, likeList, query, window, { idColumn: LIKE_TIE_COLUMN });
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

/**
 * The same page of likes of every comment in one statement (GraphQL's `Comment.likes`): oldest first
 * per comment, ties by user, as the REST list. A window numbers each comment's likes over the
 * `(comment_id, created_at, user_id)` index; a like has no id, so core's page-per-parent reader
 * (which orders by id) does not fit.
 */
export function listLikesOfComments(
  db: Db,
  commentIds: readonly number[],
  window: { limit: number; offset: number },
): Promise<LikeRow[]> {
  if (commentIds.length === 0) return Promise.resolve([]);
  const numbered = db
    .selectFrom('comment_likes')
    .select(['comment_id', 'user_id', 'created_at'])
    .select((eb) =>
      eb.fn
        .agg<number>('row_number')
        .over((over) => over.partitionBy('comment_id').orderBy('created_at').orderBy('user_id'))
        .as('position'),
    )
    .where('comment_id', 'in', [...commentIds]);
  return db
    .selectFrom(numbered.as('numbered'))
    .select(['comment_id', 'user_id', 'created_at'])
    .where('position', '>', window.offset)
    .where('position', '<=', window.offset + window.limit)
    .orderBy('comment_id')
    .orderBy('position')
    .execute();
}
