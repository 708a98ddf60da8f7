import { anyTable } from '../../core/db/by-id-statements.ts';
import type { Db } from '../../core/db/database.ts';

/**
 * All SQL of an erasure (DECISIONS §19) beyond the user's own row: their content removed for good, live
 * and in the trash (the stored events are the events module's: `scrubStored`). Erasure is a rare admin
 * action: the trash's likes are looked through by key prefix.
 */

/** Ids of what an erasure removed: the revisions of these go too (erase-revisions.ts). */
export interface ErasedContent {
  postIds: number[];
  commentIds: number[];
}

const CHUNK = 200;
function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}

/**
 * Removes the user's live posts (with the comments on them and their likes), their comments (with their
 * likes) and their likes of others' comments. The foreign keys' cascades and the counters' triggers
 * do the rest, as for a permanent delete.
 */
export async function removeLiveContent(trx: Db, userId: number): Promise<ErasedContent> {
  const t = anyTable(trx);
  const posts = await t.selectFrom('posts').select('id').where('author_id', '=', userId).execute();
  const postIds = posts.map((row) => Number(row.id));
  const comments = await t
    .selectFrom('comments')
    .select('id')
    .where((eb) =>
      eb.or([
        eb('author_id', '=', userId),
        eb('post_id', 'in', t.selectFrom('posts').select('id').where('author_id', '=', userId)),
      ]),
    )
    .execute();
  await t.deleteFrom('comment_likes').where('user_id', '=', userId).execute();
  await t.deleteFrom('comments').where('author_id', '=', userId).execute();
  await t.deleteFrom('posts').where('author_id', '=', userId).execute();
  return { postIds, commentIds: comments.map((row) => Number(row.id)) };
}

/** The user's own row in the trash and its deletion's id, or undefined. */
export function findTrashedUser(
  db: Db,
  userId: number,
): Promise<{ deletion_id: string; row_data: string } | undefined> {
  return db
    .selectFrom('trash_items')
    .select(['deletion_id', 'row_data'])
    .where('resource', '=', 'user')
    .where('item_key', '=', String(userId))
    .executeTakeFirst();
}

/**
 * Removes from the trash for good: the deletion the user went with (their cascade), their trashed posts
 * (with the comments on them), their trashed comments, and the likes of all those comments and their own.
 * What it removed of posts and comments.
 */
export async function removeTrashedContent(trx: Db, userId: number, deletionId?: string): Promise<ErasedContent> {
  const ofDeletion = deletionId
    ? await trx
        .selectFrom('trash_items')
        .select(['resource', 'item_id'])
        .where('deletion_id', '=', deletionId)
        .where('resource', 'in', ['post', 'comment'])
        .execute()
    : [];
  if (deletionId) await trx.deleteFrom('trash_items').where('deletion_id', '=', deletionId).execute();
  const posts = await trx
    .selectFrom('trash_items')
    .select('item_id')
    .where('resource', '=', 'post')
    .where('owner_id', '=', userId)
    .execute();
  const postIds = posts.map((row) => Number(row.item_id));
  let comments = await trx
    .selectFrom('trash_items')
    .select('item_id')
    .where('resource', '=', 'comment')
    .where('owner_id', '=', userId)
    .execute();
  for (const chunk of chunks(postIds)) {
    comments = comments.concat(
      await trx
        .selectFrom('trash_items')
        .select('item_id')
        .where('resource', '=', 'comment')
        .where('parent_id', 'in', chunk)
        .execute(),
    );
  }
  const commentIds = [...new Set(comments.map((row) => Number(row.item_id)))];
  for (const chunk of chunks(postIds)) {
    await trx.deleteFrom('trash_items').where('resource', '=', 'post').where('item_id', 'in', chunk).execute();
  }
  for (const chunk of chunks(commentIds)) {
    await trx.deleteFrom('trash_items').where('resource', '=', 'comment').where('item_id', 'in', chunk).execute();
    // A like's key is `commentId:userId`.
    await trx
      .deleteFrom('trash_items')
      .where('resource', '=', 'like')
      .where((eb) => eb.or(chunk.map((id) => eb('item_key', 'like', `${id}:%`))))
      .execute();
  }
  await trx.deleteFrom('trash_items').where('resource', '=', 'like').where('item_key', 'like', `%:${userId}`).execute();
  return {
    postIds: [...postIds, ...ofDeletion.filter((r) => r.resource === 'post').map((r) => Number(r.item_id))],
    commentIds: [...commentIds, ...ofDeletion.filter((r) => r.resource === 'comment').map((r) => Number(r.item_id))],
  };
}
