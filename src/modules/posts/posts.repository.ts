import type { Insertable } from 'kysely';
import type { Db } from '../../core/db/database.ts';
import { rowByIdStatement, rowsByIdsStatement } from '../../core/db/by-id-statements.ts';
import { readRows } from '../../core/db/fast-read.ts';
import { selectPagePerParent } from '../../core/db/page-per-parent.ts';
import type { PostsTable } from './posts.table.ts';
import { POST_COLUMN_OF } from './post.ts';
import type { PostRow } from './posts.table.ts';

const ALL_POST_COLUMNS = Object.values(POST_COLUMN_OF);

/** All SQL of posts. Every list orders by id, the stable key the cursor relies on. */

const postById = rowByIdStatement<PostRow>('posts');
const postsByIds = rowsByIdsStatement<PostRow>('posts');

export async function findPostById(db: Db, id: number): Promise<PostRow | undefined> {
  return (await readRows(db, postById(db, id)))[0];
}

/** With `columns`, only those are read (the rows' other properties are absent); in no particular order. */
export async function findPostsByIds(
  db: Db,
  ids: readonly number[],
  columns?: readonly (keyof PostRow)[],
): Promise<PostRow[]> {
  return ids.length === 0 ? [] : readRows(db, postsByIds(db, ids, columns));
}

/** Newest first (by id: ids grow with time and never tie). */
export function listPosts(
  db: Db,
  query: { authorId?: number | undefined; limit: number; offset: number },
): Promise<PostRow[]> {
  let select = db.selectFrom('posts').selectAll();
  if (query.authorId !== undefined) select = select.where('author_id', '=', query.authorId);
  return select.orderBy('id', 'desc').limit(query.limit).offset(query.offset).execute();
}

export async function countPosts(db: Db, filter: { authorId?: number | undefined }): Promise<number> {
  let select = db.selectFrom('posts');
  if (filter.authorId !== undefined) select = select.where('author_id', '=', filter.authorId);
  const row = await select.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow();
  return Number(row.count);
}

/** Keyset page: ids below the cursor, descending. Rows inserted meanwhile have higher ids and never shift a page. */
export function listPostsBeforeId(db: Db, beforeId: number | undefined, take: number): Promise<PostRow[]> {
  let select = db.selectFrom('posts').selectAll();
  if (beforeId !== undefined) select = select.where('id', '<', beforeId);
  return select.orderBy('id', 'desc').limit(take).execute();
}

/** The newest posts of each author in one statement (GraphQL's `User.posts` loader); only `columns` are read. */
export function listPostsOfAuthors(
  db: Db,
  authorIds: readonly number[],
  window: { limit: number; offset: number },
  columns: readonly (keyof PostRow)[] = ALL_POST_COLUMNS,
): Promise<PostRow[]> {
  return selectPagePerParent<PostRow>(db, {
    table: 'posts',
    parent: 'author_id',
    direction: 'desc',
    parentIds: authorIds,
    window,
    columns,
  });
}

export function insertPost(db: Db, row: Insertable<PostsTable>): Promise<PostRow> {
  return db.insertInto('posts').values(row).returningAll().executeTakeFirstOrThrow();
}
