import type { Kysely } from 'kysely';
import { dialectOf } from '../../core/db/database.ts';

/**
 * `0026-users-erased` (DECISIONS §19, erase): `users.erased_at`, set when an admin erases a user, whose
 * row stays as a tombstone for their orders. Lists skip erased users (`erased_at is null`); the partial
 * index `(role, status) where erased_at is not null` holds only tombstones, so the users list's total from
 * `user_counts` subtracts them for the cost of a few rows.
 */
export const usersEraseMigration = {
  '0026-users-erased': {
    async up(db: Kysely<unknown>): Promise<void> {
      const timestamp = dialectOf(db) === 'postgres' ? 'timestamptz' : 'text';
      await db.schema.alterTable('users').addColumn('erased_at', timestamp).execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropIndex('users_erased_idx').ifExists().execute();
      await db.schema.alterTable('users').dropColumn('erased_at').execute();
    },
    // Built online (without locking a large users table), right after the transactional migrations.
    onlineIndexes: [
      { name: 'users_erased_idx', table: 'users', definition: '(role, status) where erased_at is not null' },
    ],
  },
};
