import type { Generated, Selectable } from 'kysely';
import type { Timestamp } from '../../core/db/tables.ts';

/**
 * Revisions (DECISIONS §19): one row per change of a user, post, comment or product, written in the
 * change's own transaction with its event (events.service.ts `onChange`). The audit is this table.
 */
export interface RevisionsTable {
  /** Global, ascending: the revision's `rev`. */
  id: Generated<number>;
  /** `user`, `post`, `comment`, `product`. */
  resource: string;
  item_id: number;
  /** `create`, `update`, `delete`, `restore`, `revert`, `purge`. */
  op: string;
  at: Timestamp;
  /** `user` or `system`. */
  actor_type: string;
  actor_id: number | null;
  request_id: string | null;
  /** The item as an admin's `GET /api/v2/...` shows it, without `_links` and the trash fields (JSON). */
  state: string;
}

export type RevisionRow = Selectable<RevisionsTable>;

declare module '../../core/db/tables.ts' {
  interface Tables {
    revisions: RevisionsTable;
  }
}
