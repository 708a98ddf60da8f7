import { ASCENDING } from '../../core/db/sort-direction.ts';
import type { Insertable, QueryCreator } from 'kysely';
import type { Db } from '../../core/db/database.ts';
import type { Tables } from '../../core/db/tables.ts';
import { rowByIdReader, rowsByIdsReader } from '../../core/db/by-id-statements.ts';
import { selectPagePerParent } from '../../core/db/page-per-parent.ts';
import type { PageWindow } from '../../core/pagination.ts';
import { readQueriedPage, type QueriedPage } from '../../core/querying/list-page.ts';
import type { ListQuery } from '../../core/querying/list-query-parse.ts';
import { createListStatements, listColumnsOf } from '../../core/querying/list-sql.ts';
import { ALL_COMMENTS_QUERY, COMMENT_QUERY } from './comments.query.ts';
import { COMMENT_COLUMN_OF } from './comment.ts';
import type { CommentRow, CommentsTable } from './comments.table.ts';

/** All SQL of comments. Lists are oldest first by id (ids grow with time and never tie). */

export const findCommentById = rowByIdReader<CommentRow>('comments');
export const findCommentsByIds = rowsByIdsReader<CommentRow>('comments');

/** The insert of a new comment, built on `qc` (the outbox runs it with its `comment.created` event: `recordInsert`). */
export function commentInsert(qc: QueryCreator<Tables>, row: Insertable<CommentsTable>) {
  return qc.insertInto('comments').values(row).returningAll();
}

const commentList = createListStatements<CommentRow>('comments', listColumnsOf([COMMENT_QUERY], 'id', 'post_id'));

/** One page of a post's comments as the request's grammar reads it (its scope names the post). */
export function readCommentPage(db: Db, query: ListQuery, window: PageWindow): Promise<QueriedPage<CommentRow>> {
  return readQueriedPage(db, COMMENT_QUERY, commentList, query, window);
}

const ALL_COMMENT_COLUMNS = Object.values(COMMENT_COLUMN_OF);

/** The first comments of each post in one statement (GraphQL's `Post.comments` loader); only `columns` are read. */
export function listCommentsOfPosts(
  db: Db,
  postIds: readonly number[],
  window: { limit: number; offset: number },
  columns: readonly (keyof CommentRow)[] = ALL_COMMENT_COLUMNS,
): Promise<CommentRow[]> {
  return selectPagePerParent<CommentRow>(db, {
    table: 'comments',
    parent: 'post_id',
    direction: ASCENDING,
    parentIds: postIds,
    window,
    columns,
  });
}

export async function deleteCommentById(db: Db, id: number): Promise<boolean> {
  const result = await db.deleteFrom('comments').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

const allCommentsList = createListStatements<CommentRow>(
  'comments',
  listColumnsOf([ALL_COMMENTS_QUERY], 'id', 'post_id'),
);

/** One page of every comment as the request's grammar reads it (`GET /comments`). */
export function readAllCommentsPage(db: Db, query: ListQuery, window: PageWindow): Promise<QueriedPage<CommentRow>> {
  return readQueriedPage(db, ALL_COMMENTS_QUERY, allCommentsList, query, window);
}
