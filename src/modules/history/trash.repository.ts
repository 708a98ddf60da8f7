import { anyTable } from '../../core/db/by-id-statements.ts';
import type { Db } from '../../core/db/database.ts';
import { columnInParam, idListParam } from '../../core/db/id-list.ts';
import type { TrashItemRow, TrashItemsTable } from './trash.table.ts';

/** All SQL of the trash: what a deletion takes out of the live tables, and putting it back. */

/** The kinds of row the trash holds, each with its table, its key and its rank in a restore. */
export const TRASHED_KINDS = {
  user: { table: 'users', rank: 0 },
  avatar: { table: 'user_avatars', rank: 1 },
  product: { table: 'products', rank: 2 },
  post: { table: 'posts', rank: 3 },
  comment: { table: 'comments', rank: 4 },
  like: { table: 'comment_likes', rank: 5 },
} as const;
export type TrashedKind = keyof typeof TRASHED_KINDS;

/** A row a deletion takes: its kind, key, id and owner, and the row itself. */
export interface CapturedRow {
  resource: TrashedKind;
  key: string;
  itemId: number | null;
  ownerId: number | null;
  parentId: number | null;
  row: Record<string, unknown>;
}

type Row = Record<string, unknown>;

const keyOf: Record<TrashedKind, (row: Row) => string> = {
  user: (row) => String(row.id),
  avatar: (row) => String(row.user_id),
  product: (row) => String(row.id),
  post: (row) => String(row.id),
  comment: (row) => String(row.id),
  like: (row) => `${row.comment_id}:${row.user_id}`,
};
const idOf = (resource: TrashedKind, row: Row): number | null =>
  resource === 'like' || resource === 'avatar' ? null : Number(row.id);
const ownerOf = (resource: TrashedKind, row: Row): number | null => {
  if (resource === 'user') return Number(row.id);
  if (resource === 'post' || resource === 'comment') return Number(row.author_id);
  return null;
};

const parentOf = (resource: TrashedKind, row: Row): number | null => {
  if (resource === 'post') return Number(row.author_id);
  if (resource === 'comment') return Number(row.post_id);
  return null;
};

/** `rows` of `resource` as a deletion captures them. */
export function captured(resource: TrashedKind, rows: readonly Row[]): CapturedRow[] {
  return rows.map((row) => ({
    resource,
    key: keyOf[resource](row),
    itemId: idOf(resource, row),
    ownerId: ownerOf(resource, row),
    parentId: parentOf(resource, row),
    row,
  }));
}

/**
 * The rows deleting this item takes with it, itself first, as the foreign keys would cascade: a
 * comment's likes; a post's comments and their likes; a user's avatar, posts, the comments on those
 * posts and their own comments, and the likes of all those comments and their own likes.
 */
export async function captureCascade(trx: Db, resource: TrashedKind, id: number): Promise<CapturedRow[]> {
  const t = anyTable(trx);
  const head = await t.selectFrom(TRASHED_KINDS[resource].table).selectAll().where('id', '=', id).execute();
  if (head.length === 0) return [];
  const rows = captured(resource, head);
  if (resource === 'product') return rows;
  if (resource === 'comment') {
    const likes = await t.selectFrom('comment_likes').selectAll().where('comment_id', '=', id).execute();
    return [...rows, ...captured('like', likes)];
  }
  if (resource === 'post') {
    const comments = await t.selectFrom('comments').selectAll().where('post_id', '=', id).execute();
    const likes = await t
      .selectFrom('comment_likes')
      .selectAll()
      .where('comment_id', 'in', t.selectFrom('comments').select('id').where('post_id', '=', id))
      .execute();
    return [...rows, ...captured('comment', comments), ...captured('like', likes)];
  }
  const avatar = await t.selectFrom('user_avatars').selectAll().where('user_id', '=', id).execute();
  const posts = await t.selectFrom('posts').selectAll().where('author_id', '=', id).execute();
  const theirComments = (q: ReturnType<typeof anyTable>) =>
    q
      .selectFrom('comments')
      .select('id')
      .where((eb) =>
        eb.or([
          eb('author_id', '=', id),
          eb('post_id', 'in', q.selectFrom('posts').select('id').where('author_id', '=', id)),
        ]),
      );
  const comments = await t.selectFrom('comments').selectAll().where('id', 'in', theirComments(t)).execute();
  const likes = await t
    .selectFrom('comment_likes')
    .selectAll()
    .where((eb) => eb.or([eb('user_id', '=', id), eb('comment_id', 'in', theirComments(t))]))
    .execute();
  return [
    ...rows,
    ...captured('avatar', avatar),
    ...captured('post', posts),
    ...captured('comment', comments),
    ...captured('like', likes),
  ];
}

/** Bytes (an avatar's image) as JSON can hold them, and back. */
function encodeRow(row: Row): string {
  return JSON.stringify(row, (_key, value: unknown) =>
    value instanceof Uint8Array ? { $bytes: Buffer.from(value).toString('base64') } : value,
  );
}
function decodeRow(text: string): Row {
  return JSON.parse(text, (_key, value: unknown) =>
    value && typeof value === 'object' && '$bytes' in value
      ? Buffer.from(String((value as { $bytes: string }).$bytes), 'base64')
      : value,
  ) as Row;
}

/** Rows per insert statement: well under either database's limit of bound parameters. */
const CHUNK = 200;

function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}

export interface TrashStamp {
  deletionId: string;
  deletedAt: string;
  deletedBy: { type: 'user' | 'system'; id: number | null };
}

/** One deletion: the rows it takes (its item first, as captured) under its stamp. */
export interface Deletion {
  rows: readonly CapturedRow[];
  stamp: TrashStamp;
}

/** Trash rows per insert statement: 11 bound values each, well under either database's limit (SQLite's 32,766). */
const TRASH_INSERT_ROWS = 1_000;

/** Writes the deletions' captured rows into the trash, each under its own deletion, a statement per thousand rows. */
export async function insertTrashItems(trx: Db, deletions: readonly Deletion[]): Promise<void> {
  const values: TrashItemsTable[] = deletions.flatMap(({ rows, stamp }) =>
    rows.map((item) => ({
      resource: item.resource,
      item_key: item.key,
      item_id: item.itemId,
      owner_id: item.ownerId,
      parent_id: item.parentId,
      deletion_id: stamp.deletionId,
      rank: TRASHED_KINDS[item.resource].rank,
      deleted_at: stamp.deletedAt,
      deleted_by_type: stamp.deletedBy.type,
      deleted_by_id: stamp.deletedBy.id,
      row_data: encodeRow(item.row),
    })),
  );
  for (let i = 0; i < values.length; i += TRASH_INSERT_ROWS)
    await trx
      .insertInto('trash_items')
      .values(values.slice(i, i + TRASH_INSERT_ROWS))
      .execute();
}

/**
 * Deletes the items' rows (`ids`, not empty) from their live table, in one statement (the foreign keys
 * take the rest of their cascades): one id as `id = $1`, more as one list (core/db/id-list.ts).
 */
export async function deleteLiveRows(trx: Db, resource: TrashedKind, ids: readonly number[]): Promise<void> {
  const t = anyTable(trx).deleteFrom(TRASHED_KINDS[resource].table);
  await (
    ids.length === 1 ? t.where('id', '=', ids[0]!) : t.where(columnInParam(trx, 'id', idListParam(trx, ids)))
  ).execute();
}

/** The trashed item (user, post, comment or product) by its id, or undefined. */
export function findTrashItem(db: Db, resource: TrashedKind, id: number): Promise<TrashItemRow | undefined> {
  return db
    .selectFrom('trash_items')
    .selectAll()
    .where('resource', '=', resource)
    .where('item_key', '=', String(id))
    .executeTakeFirst();
}

/** Every row of a deletion, in restore order. */
export function readDeletion(db: Db, deletionId: string): Promise<TrashItemRow[]> {
  return db
    .selectFrom('trash_items')
    .selectAll()
    .where('deletion_id', '=', deletionId)
    .orderBy('rank')
    .orderBy('item_key')
    .execute();
}

export const rowOf = (item: TrashItemRow): Row => decodeRow(item.row_data);

/** Puts a deletion's rows back in their tables, parents first, and empties it from the trash. */
export async function restoreDeletion(trx: Db, items: readonly TrashItemRow[]): Promise<void> {
  for (const kind of Object.keys(TRASHED_KINDS) as TrashedKind[]) {
    const rows = items.filter((item) => item.resource === kind).map(rowOf);
    for (const chunk of chunks(rows)) {
      await anyTable(trx).insertInto(TRASHED_KINDS[kind].table).values(chunk).execute();
    }
  }
  const deletions = [...new Set(items.map((item) => item.deletion_id))];
  for (const deletionId of deletions) await removeDeletion(trx, deletionId);
}

/** Removes a deletion from the trash for good. */
export async function removeDeletion(trx: Db, deletionId: string): Promise<number> {
  const result = await trx.deleteFrom('trash_items').where('deletion_id', '=', deletionId).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The deletions with an item trashed before `before` (oldest first, at most `limit`). */
export async function expiredDeletions(db: Db, before: string, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('trash_items')
    .select('deletion_id')
    .where('deleted_at', '<', before)
    .orderBy('deleted_at')
    .limit(limit)
    .execute();
  return [...new Set(rows.map((row) => row.deletion_id))];
}

/**
 * A page of one resource's trash, most recently deleted first (ties by key), of one owner when given;
 * `after` is the last item of the page before.
 */
export function listTrash(
  db: Db,
  resource: TrashedKind,
  options: {
    ownerId?: number | undefined;
    parentId?: number | undefined;
    limit: number;
    after?: { deletedAt: string; key: string } | undefined;
  },
): Promise<TrashItemRow[]> {
  let query = db.selectFrom('trash_items').selectAll().where('resource', '=', resource);
  if (options.ownerId !== undefined) query = query.where('owner_id', '=', options.ownerId);
  if (options.parentId !== undefined) query = query.where('parent_id', '=', options.parentId);
  const after = options.after;
  if (after) {
    query = query.where((eb) =>
      eb.or([
        eb('deleted_at', '<', after.deletedAt),
        eb.and([eb('deleted_at', '=', after.deletedAt), eb('item_key', '<', after.key)]),
      ]),
    );
  }
  return query.orderBy('deleted_at', 'desc').orderBy('item_key', 'desc').limit(options.limit).execute();
}
