import type { Generated, Insertable, Selectable, Updateable } from 'kysely';
import type { SqlBool, Timestamp } from '../../core/db/tables.ts';

/**
 * The users table and its row types, in the database's own snake_case
 * (only repositories see rows). They join the database type `Tables` of core/db/tables.ts below.
 */
export interface UsersTable {
  id: Generated<number>;
  name: string;
  email: string;
  age: number | null;
  role: 'user' | 'admin';
  status: 'active' | 'inactive' | 'suspended';
  email_verified: SqlBool;
  password_hash: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** Set when an admin erased the user (DECISIONS §19): the row is a tombstone their orders point to. */
  erased_at: Timestamp | null;
}

/** Users per (role, status), kept by triggers (users.counters.migration.ts): the list's exact totals. */
export interface UserCountsTable {
  role: string;
  status: string;
  n: number;
}

declare module '../../core/db/tables.ts' {
  interface Tables {
    users: UsersTable;
    user_counts: UserCountsTable;
  }
}

export type UserRow = Selectable<UsersTable>;
export type NewUserRow = Insertable<UsersTable>;
export type UserRowUpdate = Updateable<UsersTable>;
