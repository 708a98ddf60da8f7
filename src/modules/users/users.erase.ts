import { requireAdmin } from '../../core/access/guards.ts';
import type { Principal } from '../../core/access/principal.ts';
import { now } from '../../core/clock.ts';
import type { Db } from '../../core/db/database.ts';
import { AppError } from '../../core/errors/app-error.ts';
import type { EventRecorder } from '../events/event-recorder.ts';
import { ERASED, eraseTraces, trashedUserRow } from '../history/erase.ts';
import { erasedEmailOf, toUser, type User } from './user.ts';
import * as repo from './users.repository.ts';
import type { UserRow } from './users.table.ts';

/** The event of an erasure: the id alone (DECISIONS §19); `user.deleted` is not emitted. */
export type EraseEvents = { 'user.erased': { id: number } };

/**
 * `POST /api/v2/users/{id}/erase` (admins; DECISIONS §19): the right to be forgotten, in one transaction.
 * The row stays as a tombstone their orders point to (`[erased]`, no e-mail, age, password or avatar,
 * inactive, in no list, signing in nowhere); their posts, comments and likes go for good, live or in the
 * trash; their personal values leave every stored event and revision (modules/history/erase.ts). A user in
 * the trash is taken out of it as the tombstone. Erasing a tombstone again answers it as it is: 200, no event.
 */
export function createUsersErase(db: Db, events: EventRecorder<EraseEvents>) {
  return {
    async eraseUser(actor: Principal | null, id: number): Promise<User> {
      requireAdmin(actor);
      return events.transaction(db, async (trx) => {
        let current = await repo.lockUserById(trx, id);
        let deletionId: string | undefined;
        if (!current) {
          const trashed = await trashedUserRow(trx, id);
          if (!trashed) throw AppError.notFound(`User ${id}`);
          deletionId = trashed.deletionId;
          current = trashed.row as unknown as UserRow;
        }
        if (current.erased_at && !deletionId) return toUser(current);
        const personal = { name: current.name, email: current.email };
        await eraseTraces(trx, id, personal, (values, rewrite) => events.scrubStored(trx, values, rewrite), deletionId);
        const at = now();
        // Back from the trash as the tombstone itself: the erased values are written with the row.
        if (deletionId) await repo.insertUser(trx, { ...tombstoneOf(current, at), id } as never);
        const row = await repo.eraseUserRow(trx, id, at, erasedEmailOf(id), ERASED);
        if (!current.erased_at) await events.record(trx, 'user.erased', { id });
        return toUser(row);
      });
    },
  };
}

function tombstoneOf(row: UserRow, at: string) {
  return {
    name: ERASED,
    email: erasedEmailOf(row.id),
    age: null,
    role: row.role,
    status: 'inactive' as const,
    email_verified: false,
    password_hash: null,
    created_at: row.created_at,
    updated_at: at,
    erased_at: at,
  };
}
