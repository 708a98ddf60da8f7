import type { Selectable } from 'kysely';
import type { Timestamp } from '../../core/db/tables.ts';

/**
 * The user_avatars table (one uploaded image per user) and its row type, in the database's own snake_case
 * (only repositories see rows). They join the database type `Tables` of core/db/tables.ts below.
 */
export interface UserAvatarsTable {
  user_id: number;
  content_type: string;
  data: Uint8Array;
  updated_at: Timestamp;
}

declare module '../../core/db/tables.ts' {
  interface Tables {
    user_avatars: UserAvatarsTable;
  }
}

export type AvatarRow = Selectable<UserAvatarsTable>;
