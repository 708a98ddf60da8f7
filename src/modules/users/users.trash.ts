import { requireAdmin, requireSignedIn } from '../../core/access/guards.ts';
import type { Principal } from '../../core/access/principal.ts';
import type { Db } from '../../core/db/database.ts';
import { pageWindow } from '../../core/pagination.ts';
import type { EventRecorder } from '../events/event-recorder.ts';
import type { TrashEvents } from '../history/trash.representation.ts';
import { trashActions, trashRecordOf, type Trash, type TrashFields } from '../history/trash.ts';
import { toUser, visibleTo, type User } from './user.ts';
import * as repo from './users.repository.ts';
import type { UserRow } from './users.table.ts';

const USER_PAGE_RULES = { defaultLimit: 10, maxLimit: 100 };

/** Users in the trash (DECISIONS §19): restore, read and list them. Part of the users service. */
export function createUsersTrash(db: Db, events: EventRecorder<TrashEvents>, trash: Trash) {
  const trashed = trashActions(trash, 'user');
  return {
    /** `POST /users/{id}/restore` (admins): the user and exactly what their deletion took. */
    async restoreUser(actor: Principal | null, id: number): Promise<User> {
      const principal = requireAdmin(actor);
      return events.transaction(db, async (trx) => {
        const live = (await repo.lockUserById(trx, id)) !== undefined;
        const row = await trashed.restore(trx, principal, id, live, trashRecordOf(events, trx));
        return visibleTo(principal, toUser(row as UserRow));
      });
    },

    /** `GET /users/{id}?trashed=include` (admins): the user, live or in the trash. */
    async getUserOrTrashed(actor: Principal | null, id: number): Promise<User & Partial<TrashFields>> {
      const principal = requireSignedIn(actor);
      const row = await repo.findUserById(db, id);
      if (row) return visibleTo(principal, toUser(row));
      const found = await trashed.read(db, principal, id);
      return { ...visibleTo(principal, toUser(found.row as UserRow)), ...found.trash };
    },

    /** `GET /users?trashed=only` (admins): the trash of users, most recently deleted first. */
    async listTrashedUsers(
      actor: Principal | null,
      options: { limit?: number | undefined; cursor?: string | undefined },
    ) {
      const principal = requireSignedIn(actor);
      const { limit } = pageWindow({ limit: options.limit }, USER_PAGE_RULES);
      const page = await trashed.list(db, principal, { limit, cursor: options.cursor });
      return {
        items: page.items.map((item) => ({ ...visibleTo(principal, toUser(item.row as UserRow)), ...item.trash })),
        nextCursor: page.nextCursor,
        limit,
      };
    },
  };
}
