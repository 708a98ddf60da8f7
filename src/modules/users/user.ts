import { isAdmin, type Principal, type Role } from '../../core/access/principal.ts';
import type { UserRow } from './users.table.ts';

export type UserStatus = 'active' | 'inactive' | 'suspended';

/** The user as the domain knows it: never carries the password hash. */
export interface User {
  id: number;
  name: string;
  /** Null when the viewer may not see it: see `visibleTo`. */
  email: string | null;
  age: number | null;
  role: Role;
  status: UserStatus;
  emailVerified: boolean;
  createdAt: string;
  updatedAt: string;
}

export const USER_FIELDS = [
  'id',
  'name',
  'email',
  'age',
  'role',
  'status',
  'emailVerified',
  'createdAt',
  'updatedAt',
] as const;
export type UserField = (typeof USER_FIELDS)[number];

/** The column of each field: loaders read only the columns of the fields a GraphQL query selects. */
export const USER_COLUMN_OF = {
  id: 'id',
  name: 'name',
  email: 'email',
  age: 'age',
  role: 'role',
  status: 'status',
  emailVerified: 'email_verified',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
} as const satisfies Record<keyof User, keyof UserRow>;

/**
 * What an erased user's row keeps in `email` (DECISIONS §19): a value no sign-up can take (it is no
 * e-mail address), unique per user, and hidden everywhere (`toUser` answers null).
 */
export const ERASED_NAME = '[erased]';
export const erasedEmailOf = (id: number): string => `${ERASED_NAME}:${id}`;
/** True for the tombstone of an erased user (read with or without its `erased_at` column). */
export const isErasedRow = (row: Pick<UserRow, 'email'> & Partial<Pick<UserRow, 'erased_at'>>): boolean =>
  Boolean(row.erased_at) || (typeof row.email === 'string' && row.email.startsWith(`${ERASED_NAME}:`));

export function toUser(row: UserRow): User {
  return {
    id: row.id,
    name: row.name,
    email: isErasedRow(row) ? null : row.email,
    age: row.age,
    role: row.role,
    status: row.status,
    emailVerified: Boolean(row.email_verified),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** A user's email is personal data: shown to that user and to admins (DECISIONS §5). */
export const maySeeEmail = (viewer: Principal | null, userId: number): boolean =>
  isAdmin(viewer) || viewer?.userId === userId;

/**
 * The user as `viewer` may see them: the one rule below REST (which answers `"email": null`) and
 * GraphQL (`email: ""`, the seed types it `String!`). Every read of other users goes through it.
 */
export function visibleTo(viewer: Principal | null, user: User): User {
  // `!user.email`: also a user read without its email column (a GraphQL selection without it).
  return !user.email || maySeeEmail(viewer, user.id) ? user : { ...user, email: null };
}
