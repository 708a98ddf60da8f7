import { sql, type ExpressionBuilder, type SqlBool } from 'kysely';
import { containsPattern } from '../../core/db/like-pattern.ts';
import type { Tables } from '../../core/db/tables.ts';
import { anyTable } from '../../core/db/by-id-statements.ts';
import type { Db } from '../../core/db/database.ts';

/**
 * All SQL of an erasure (DECISIONS §19) beyond the user's own row: their content removed for good, live
 * and in the trash, and the stored events that hold their personal values. Erasure is a rare admin
 * action: the trash's likes and the events are looked through by key prefix and by text.
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

/** The stored events that may hold the user's personal values: their own, and any whose text holds one. */
/**
 * Rows of a stored copy (`column`, JSON text) that may hold the user's values: their own (`resource`
 * `user:<id>`, when the table has one) and any whose text contains one of `texts` as JSON writes it, by the
 * one LIKE pattern the service builds (core/db/like-pattern.ts: literal, bound, escaped).
 */
export function holdingAny(column: string, texts: readonly string[], ownResource?: string) {
  return (eb: ExpressionBuilder<Tables, keyof Tables>) =>
    eb.or([
      ...(ownResource === undefined ? [] : [eb(sql.ref('resource'), '=', ownResource)]),
      ...texts.map(
        (text) =>
          sql<SqlBool>`${sql.ref(column)} like ${containsPattern(JSON.stringify(text).slice(1, -1))} escape '\\'`,
      ),
    ]);
}

export function eventsHolding(
  db: Db,
  userId: number,
  texts: readonly string[],
): Promise<{ event_id: string; data: string }[]> {
  return db
    .selectFrom('events')
    .select(['event_id', 'data'])
    .where(holdingAny('data', texts, `user:${userId}`))
    .execute();
}

/** The webhook deliveries whose saved payload (the event JSON as sent) may hold them, likewise. */
export function deliveriesHolding(
  db: Db,
  userId: number,
  texts: readonly string[],
): Promise<{ id: number; payload: string }[]> {
  return db
    .selectFrom('webhook_deliveries')
    .select(['id', 'payload'])
    .where(holdingAny('payload', texts, `user:${userId}`))
    .execute();
}

export async function rewriteDeliveryPayload(trx: Db, id: number, payload: string): Promise<void> {
  await trx.updateTable('webhook_deliveries').set({ payload }).where('id', '=', id).execute();
}

export async function rewriteEventData(trx: Db, eventId: string, data: string): Promise<void> {
  await trx.updateTable('events').set({ data }).where('event_id', '=', eventId).execute();
}
