import type { Db } from '../../core/db/database.ts';
import type { AvatarRow } from './avatars.table.ts';

/** All SQL of avatars: one row per user, keyed by the user's id (it goes when the user goes). */

export function findAvatar(db: Db, userId: number): Promise<AvatarRow | undefined> {
  return db.selectFrom('user_avatars').selectAll().where('user_id', '=', userId).executeTakeFirst();
}

/** Stores the avatar, replacing any previous one; tells whether it is the user's first. */
export async function upsertAvatar(db: Db, row: AvatarRow): Promise<boolean> {
  const inserted = await db
    .insertInto('user_avatars')
    .values(row)
    .onConflict((conflict) => conflict.column('user_id').doNothing())
    .returning('user_id')
    .executeTakeFirst();
  if (inserted) return true;
  await db
    .updateTable('user_avatars')
    .set({ content_type: row.content_type, data: row.data, updated_at: row.updated_at })
    .where('user_id', '=', row.user_id)
    .execute();
  return false;
}
