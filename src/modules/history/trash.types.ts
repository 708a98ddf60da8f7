/** The trash's shapes (DECISIONS §19), apart so that trash.ts and trash.representation.ts share them. */

export type TrashedResource = 'user' | 'post' | 'comment' | 'product';

/** Who did it: a signed-in user, or the service itself (the retention sweep). */
export interface Actor {
  type: 'user' | 'system';
  id: number | null;
}

/** The trash fields a trashed item carries. */
export interface TrashFields {
  deletedAt: string;
  deletedBy: Actor;
  deletionId: string;
  purgeAt: string;
}

/** A trashed item: its row as it was in its table, and its trash fields. */
export interface TrashedItem {
  row: Record<string, unknown>;
  ownerId: number | null;
  trash: TrashFields;
}

/** A row a deletion took with it, as a restore or a purge reports it. */
export interface DeletionItem {
  resource: string;
  id: number | null;
  row: Record<string, unknown>;
}
