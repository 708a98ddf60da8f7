import { dialectOf, type Db } from '../core/db/database.ts';
import type { SeedOptions } from './seed-options.ts';
import { silentProgress, type SeedProgress } from './seed-progress.ts';
import {
  insertSeedComments,
  insertSeedLikes,
  insertSeedPosts,
  insertSeedProducts,
  insertSeedUsers,
  findMaxUserId,
  prepareBulkLoad,
  compactAfterBulkLoad,
  hasSeedPostWords,
} from './seed.repository.ts';
import { commentRow, likeCreatedAt, likeUserIndex, postRow, productRow, userRow } from './seed-rows.ts';
import { seedOrders } from './seed-orders.ts';
import { POST_TEXT_WORDS } from './seed-vocabulary.ts';
import { loadTable, type TableSummary } from './seed-batches.ts';

export type { TableSummary } from './seed-batches.ts';

export interface SeedContext {
  progress?: SeedProgress;
  currency?: string;
}

/**
 * Generates the data set into `db` (already migrated), table by table, parents first: each child
 * table refers to the ids its parents got back. Returns one summary per table.
 */
export async function seedDatabase(db: Db, options: SeedOptions, context: SeedContext = {}): Promise<TableSummary[]> {
  const progress = context.progress ?? silentProgress;
  const { seed } = options;
  const dialect = dialectOf(db);
  const load = { db, dialect, progress };
  const summaries: TableSummary[] = [];

  await prepareBulkLoad(db);
  const runTag = await findMaxUserId(db);
  const userIds = new Int32Array(options.users);
  summaries.push(
    await loadTable(
      load,
      'users',
      options.users,
      9,
      (i) => userRow(seed, i, runTag),
      async (trx, rows, first) => {
        userIds.set(await insertSeedUsers(trx, rows), first);
      },
    ),
  );

  const perUser = options.postsPerUser;
  const vocabulary = (await hasSeedPostWords(db)) ? POST_TEXT_WORDS : undefined;
  const postCount = options.users * perUser;
  const postIds = new Int32Array(postCount);
  const postTimes = new Float64Array(postCount);
  summaries.push(
    await loadTable(
      load,
      'posts',
      postCount,
      5,
      (i) => postRow(seed, i, perUser, userIds[Math.floor(i / perUser)]!),
      async (trx, posts, first) => {
        postIds.set(
          await insertSeedPosts(
            trx,
            posts.map((p) => p.row),
            vocabulary,
          ),
          first,
        );
        posts.forEach((p, k) => (postTimes[first + k] = p.createdAt));
      },
    ),
  );

  const perPost = options.commentsPerPost;
  const commentCount = postCount * perPost;
  const commentIds = new Int32Array(commentCount);
  const commentTimes = new Float64Array(commentCount);
  summaries.push(
    await loadTable(
      load,
      'comments',
      commentCount,
      4,
      (i) => {
        const post = Math.floor(i / perPost);
        return commentRow(seed, i, perPost, { id: postIds[post]!, createdAt: postTimes[post]! }, userIds);
      },
      async (trx, comments, first) => {
        commentIds.set(
          await insertSeedComments(
            trx,
            comments.map((c) => c.row),
          ),
          first,
        );
        comments.forEach((c, k) => (commentTimes[first + k] = c.createdAt));
      },
    ),
  );

  const perComment = Math.min(options.likesPerComment, options.users);
  summaries.push(
    await loadTable(
      load,
      'comment_likes',
      commentCount * perComment,
      3,
      (i) => {
        const comment = Math.floor(i / perComment);
        const k = i % perComment;
        return {
          comment_id: commentIds[comment]!,
          user_id: userIds[likeUserIndex(seed, comment, k, options.users)]!,
          created_at: likeCreatedAt(commentTimes[comment]!, k),
        };
      },
      (trx, rows) => insertSeedLikes(trx, rows),
    ),
  );

  const productIds = new Int32Array(options.products);
  summaries.push(
    await loadTable(
      load,
      'products',
      options.products,
      8,
      (i) => productRow(seed, i, options.categories),
      async (trx, rows, first) => {
        productIds.set(await insertSeedProducts(trx, rows), first);
      },
    ),
  );

  summaries.push(
    ...(await seedOrders(load, {
      seed,
      count: options.orders,
      userIds,
      productIds,
      currency: context.currency ?? 'USD',
    })),
  );
  await compactAfterBulkLoad(db);
  return summaries;
}
