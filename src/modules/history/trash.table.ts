import type { Selectable } from 'kysely';
import type { Timestamp } from '../../core/db/tables.ts';

/**
 * The trash (DECISIONS §19): a deleted item's row leaves its own table for this one, with the rows that
 * went with it (a post's comments and their likes; a user's avatar, posts, comments and likes), all under
 * one `deletion_id`. Every read of the live tables (lists, counters, search, facets, by-id reads) skips
 * trashed items because they are not there: no read path can forget the trash, and a trash of any size
 * costs the live lists nothing.
 */
export interface TrashItemsTable {
  /** `user`, `post`, `comment`, `product`, `like`, `avatar`. */
  resource: string;
  /** The item's key: its id, `commentId:userId` for a like, the user's id for an avatar. */
  item_key: string;
  /** The id of a user, post, comment or product; null for a like or an avatar. */
  item_id: number | null;
  /** Whose it is: the author of a post or comment, the user themselves; null otherwise. */
  owner_id: number | null;
  /** What it belongs to: a comment's post, a post's author; null otherwise. */
  parent_id: number | null;
  deletion_id: string;
  /** Restore order within a deletion: users, avatars, posts, comments, likes. */
  rank: number;
  deleted_at: Timestamp;
  deleted_by_type: string;
  deleted_by_id: number | null;
  /** The row as it was in its table, as JSON. */
  row_data: string;
}

declare module '../../core/db/tables.ts' {
  interface Tables {
    trash_items: TrashItemsTable;
  }
}

export type TrashItemRow = Selectable<TrashItemsTable>;
