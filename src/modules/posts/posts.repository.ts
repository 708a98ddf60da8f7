import { DESCENDING } from '../../core/db/sort-direction.ts';
import { counterSum } from '../../core/db/counter-sums.ts';
import type { Insertable, QueryCreator } from 'kysely';
import { dialectOf, type Db } from '../../core/db/database.ts';
import type { Tables } from '../../core/db/tables.ts';
import type { PageWindow } from '../../core/pagination.ts';
import type { Condition } from '../../core/querying/list-grammar.ts';
import { readQueriedPage, type QueriedPage } from '../../core/querying/list-page.ts';
import type { ListQuery } from '../../core/querying/list-query-parse.ts';
import { createListStatements, listColumnsOf } from '../../core/querying/list-sql.ts';
import { rowByIdReader, rowsByIdsReader } from '../../core/db/by-id-statements.ts';
import { selectPagePerParent } from '../../core/db/page-per-parent.ts';
import { POST_COLUMN_OF } from './post.ts';
import type { PostRow, PostsTable } from './posts.table.ts';
import { POST_QUERY } from './posts.query.ts';
import { POST_SEARCH } from './posts.search.ts';
import { searchResultsOf, type SearchResults } from '../../core/search/search-results.ts';

const ALL_POST_COLUMNS = Object.values(POST_COLUMN_OF);

/** All SQL of posts. */

export const findPostById = rowByIdReader<PostRow>('posts');

/** The insert of a new post, built on `qc` (the outbox runs it with its `post.created` event: `recordInsert`). */
export function postInsert(qc: QueryCreator<Tables>, row: Insertable<PostsTable>) {
  return qc.insertInto('posts').values(row).returningAll();
}

/** Reads a post inside a transaction, locking the row on PostgreSQL (SQLite serialises writers). */
export function lockPostById(db: Db, id: number): Promise<PostRow | undefined> {
  const query = db.selectFrom('posts').selectAll().where('id', '=', id);
  return (dialectOf(db) === 'postgres' ? query.forUpdate() : query).executeTakeFirst();
}

export function updatePostById(
  db: Db,
  id: number,
  changes: Partial<Pick<PostRow, 'title' | 'content' | 'updated_at'>>,
): Promise<PostRow | undefined> {
  return db.updateTable('posts').set(changes).where('id', '=', id).returningAll().executeTakeFirst();
}

/** Removes the post for good; its comments and their likes go with it (foreign keys cascade). */
export async function deletePostById(db: Db, id: number): Promise<boolean> {
  const result = await db.deleteFrom('posts').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** With `columns`, only those are read (the rows' other properties are absent); in no particular order. */
export const findPostsByIds = rowsByIdsReader<PostRow>('posts');

const postList = createListStatements<PostRow>('posts', listColumnsOf([POST_QUERY], 'id', 'author_id'), POST_SEARCH);

/** A searched page's scores, highlights and suggestion (core/search). */
export const readPostSearchResults = (
  db: Db,
  query: ListQuery,
  rows: readonly PostRow[],
  highlight: readonly string[],
): Promise<SearchResults | undefined> => searchResultsOf(db, POST_SEARCH, query, rows, highlight);

/**
 * One page of posts as the request's grammar reads it (posts.query.ts), with the total its `count`
 * asks for: from `post_counts` when it can answer (countedPosts), else counted.
 */
export function readPostPage(db: Db, query: ListQuery, window: PageWindow): Promise<QueriedPage<PostRow>> {
  return readQueriedPage(db, POST_QUERY, postList, query, window, { countedTotal: countedPosts });
}

/** The key of every post in `post_counts` (no user has id 0). */
const ALL_POSTS = 0;

/** One author's row (a named statement on PostgreSQL), or a sum over several (`authorId[in]`). */
const sumPostCounts = counterSum('post_counts', ['author_id']);

/**
 * The exact total from `post_counts` (posts.counters.migration.ts) when the conditions are only
 * equalities or `in` lists on the author (a user's posts, `authorId`), or none: one row per author
 * named, or the row of all posts. Undefined for any other condition (the rows are counted then).
 */
function countedPosts(db: Db, conditions: readonly Condition[]): Promise<number> | undefined {
  let authors: number[] | undefined;
  for (const condition of conditions) {
    if (condition.column !== 'author_id' || condition.anyOfColumns) return undefined;
    if (condition.operator !== 'eq' && condition.operator !== 'in') return undefined;
    const values = condition.operator === 'eq' ? [condition.value] : (condition.value as readonly unknown[]);
    // Ids are positive: 0 (the key of all posts) or below names no author.
    const ids = values.map(Number).filter((id) => id > 0);
    authors = authors === undefined ? ids : authors.filter((id) => ids.includes(id));
  }
  if (authors?.length === 0) return Promise.resolve(0);
  return sumPostCounts(db, { author_id: authors ?? [ALL_POSTS] });
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
    direction: DESCENDING,
    parentIds: authorIds,
    window,
    columns,
  });
}
