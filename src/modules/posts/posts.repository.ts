import { sql } from 'kysely';
import type { Db } from '../../core/db/database.ts';
import { statementCache } from '../../core/db/statement-cache.ts';
import type { PageWindow } from '../../core/pagination.ts';
import type { Condition } from '../../core/querying/list-grammar.ts';
import { readQueriedPage, type QueriedPage } from '../../core/querying/list-page.ts';
import type { ListQuery } from '../../core/querying/list-query-parse.ts';
import { createListStatements } from '../../core/querying/list-sql.ts';
import { rowByIdStatement, rowsByIdsStatement } from '../../core/db/by-id-statements.ts';
import { readRows } from '../../core/db/fast-read.ts';
import { selectPagePerParent } from '../../core/db/page-per-parent.ts';
import { POST_COLUMN_OF } from './post.ts';
import type { PostRow } from './posts.table.ts';
import { POST_QUERY } from './posts.query.ts';

const ALL_POST_COLUMNS = Object.values(POST_COLUMN_OF);

/** All SQL of posts. */

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

const postList = createListStatements<PostRow>('posts');

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
const countersStatement = statementCache({
  keyOf: (shape: 'one' | 'many') => shape,
  build: (db, shape, params: { authors: number[] }) => {
    const query = db
      .selectFrom('post_counts')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('n'), sql.lit(0)).as('n'));
    return shape === 'one'
      ? query.where('author_id', '=', params.authors[0]!)
      : query.where(sql<boolean>`author_id in (${sql.join(params.authors)})`);
  },
});

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
  const keys = authors ?? [ALL_POSTS];
  const rows = readRows(db, countersStatement(db, keys.length === 1 ? 'one' : 'many', { authors: keys }));
  return rows.then((found) => Number(found[0]?.n ?? 0));
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
