import { randomUUID } from 'node:crypto';
import { isAdmin, type Principal } from '../../core/access/principal.ts';
import { now } from '../../core/clock.ts';
import type { Db } from '../../core/db/database.ts';
import { isForeignKeyViolation, isUniqueViolation } from '../../core/db/db-errors.ts';
import { AppError } from '../../core/errors/app-error.ts';
import type { EventRecorder } from '../events/event-recorder.ts';
import * as repo from './trash.repository.ts';
import type { TrashItemRow } from './trash.table.ts';
import type { Actor, DeletionItem, TrashedItem, TrashFields } from './trash.types.ts';
import { recordTrashEvents, type TrashEvents } from './trash.representation.ts';

/**
 * The trash as the resources' services use it (DECISIONS §19), inside their own transactions: moving an
 * item and what goes with it out of the live tables, reading it there, restoring it, removing it for good.
 */

export type { Actor, DeletionItem, TrashedItem, TrashFields, TrashedResource } from './trash.types.ts';
import type { TrashedResource } from './trash.types.ts';

export const actorOf = (principal: Principal | null): Actor =>
  principal ? { type: 'user', id: principal.userId } : { type: 'system', id: null };

const DAY_MS = 24 * 60 * 60 * 1000;

export interface TrashSettings {
  /** TRASH_RETENTION_DAYS (decimals allowed). */
  retentionDays: number;
}

export function createTrash(settings: TrashSettings) {
  const retentionMs = settings.retentionDays * DAY_MS;
  const fieldsOf = (item: TrashItemRow): TrashFields => ({
    deletedAt: item.deleted_at,
    deletedBy: { type: item.deleted_by_type as Actor['type'], id: item.deleted_by_id },
    deletionId: item.deletion_id,
    purgeAt: new Date(Date.parse(item.deleted_at) + retentionMs).toISOString(),
  });
  const trashedOf = (item: TrashItemRow): TrashedItem => ({
    row: repo.rowOf(item),
    ownerId: item.owner_id,
    trash: fieldsOf(item),
  });
  const itemsOf = (items: readonly TrashItemRow[]): DeletionItem[] =>
    items.map((item) => ({ resource: item.resource, id: item.item_id, row: repo.rowOf(item) }));
  const fieldsOfStamp = (stamp: repo.TrashStamp): TrashFields => ({
    deletedAt: stamp.deletedAt,
    deletedBy: stamp.deletedBy,
    deletionId: stamp.deletionId,
    purgeAt: new Date(Date.parse(stamp.deletedAt) + retentionMs).toISOString(),
  });
  /** The deletions into the trash and their items (each deletion's first row) out of their live table. */
  async function moveDeletions(trx: Db, resource: TrashedResource, deletions: readonly repo.Deletion[]) {
    await repo.insertTrashItems(trx, deletions);
    await repo.deleteLiveRows(
      trx,
      resource,
      deletions.map((deletion) => deletion.rows[0]!.itemId!),
    );
  }

  return {
    /**
     * Moves the item and its cascade into the trash under one new deletion, and out of its table.
     * Undefined when there is no such live item.
     */
    async moveToTrash(trx: Db, resource: TrashedResource, id: number, actor: Actor): Promise<TrashFields | undefined> {
      const rows = await repo.captureCascade(trx, resource, id);
      if (rows.length === 0) return undefined;
      const stamp = { deletionId: randomUUID(), deletedAt: now(), deletedBy: actor };
      await moveDeletions(trx, resource, [{ rows, stamp }]);
      return fieldsOfStamp(stamp);
    },

    /**
     * `moveToTrash` of each of `rows`, live rows of a kind whose deletion takes nothing with it (products),
     * as the caller read (and locked) them whole: each its own deletion, all in a statement per thousand
     * for the trash and one for the live table. The trash fields of each, in the order of `rows`.
     */
    async moveRowsToTrash(
      trx: Db,
      resource: 'product',
      rows: readonly Record<string, unknown>[],
      actor: Actor,
    ): Promise<TrashFields[]> {
      if (rows.length === 0) return [];
      const deletedAt = now();
      const deletions = repo.captured(resource, rows).map((row) => ({
        rows: [row],
        stamp: { deletionId: randomUUID(), deletedAt, deletedBy: actor },
      }));
      await moveDeletions(trx, resource, deletions);
      return deletions.map((deletion) => fieldsOfStamp(deletion.stamp));
    },

    /** The trashed item with this id, or undefined. */
    async findTrashed(db: Db, resource: TrashedResource, id: number): Promise<TrashedItem | undefined> {
      const item = await repo.findTrashItem(db, resource, id);
      return item && trashedOf(item);
    },

    /**
     * Puts the item back with everything its deletion took (a user's whole cascade); returns what came
     * back, the item first. 409 CONFLICT when a live item took a unique key meanwhile, or when what it
     * belongs to (a post's author, a comment's post) is itself in the trash; undefined when it is not there.
     */
    async restore(trx: Db, resource: TrashedResource, id: number): Promise<DeletionItem[] | undefined> {
      const item = await repo.findTrashItem(trx, resource, id);
      if (!item) return undefined;
      const items = await repo.readDeletion(trx, item.deletion_id);
      try {
        await repo.restoreDeletion(trx, items);
      } catch (error) {
        if (isUniqueViolation(error)) {
          throw AppError.conflict(`A live item took the unique key of ${resource} ${id} (e.g. its e-mail or sku)`);
        }
        if (isForeignKeyViolation(error)) {
          throw AppError.conflict(`What ${resource} ${id} belongs to is in the trash: restore that first`);
        }
        throw error;
      }
      const restored = itemsOf(items);
      const head = restored.findIndex((entry) => entry.resource === resource && entry.id === id);
      return [restored[head]!, ...restored.filter((_, i) => i !== head)];
    },

    /** Removes the item's deletion from the trash for good; returns what it held (the item first), or undefined. */
    async purge(trx: Db, resource: TrashedResource, id: number): Promise<DeletionItem[] | undefined> {
      const item = await repo.findTrashItem(trx, resource, id);
      if (!item) return undefined;
      const items = await repo.readDeletion(trx, item.deletion_id);
      await repo.removeDeletion(trx, item.deletion_id);
      const all = itemsOf(items);
      return [
        ...all.filter((e) => e.resource === resource && e.id === id),
        ...all.filter((e) => e.id !== id || e.resource !== resource),
      ];
    },

    /** The deletions past retention (oldest first), for the sweep. */
    expiredDeletions(db: Db, limit: number): Promise<string[]> {
      return repo.expiredDeletions(db, new Date(Date.now() - retentionMs).toISOString(), limit);
    },

    /** Removes one deletion for good, returning what it held (nothing when another sweep took it first). */
    async purgeDeletion(trx: Db, deletionId: string): Promise<DeletionItem[]> {
      const items = await repo.readDeletion(trx, deletionId);
      const removed = await repo.removeDeletion(trx, deletionId);
      return removed > 0 ? itemsOf(items) : [];
    },

    /** A page of a resource's trash, newest deletion first; `cursor` from the page before. */
    async list(
      db: Db,
      resource: TrashedResource,
      options: {
        ownerId?: number | undefined;
        parentId?: number | undefined;
        limit: number;
        cursor?: string | undefined;
      },
    ): Promise<{ items: TrashedItem[]; nextCursor: string | null }> {
      const after = options.cursor === undefined ? undefined : parseTrashCursor(options.cursor);
      const rows = await repo.listTrash(db, resource, {
        ownerId: options.ownerId,
        parentId: options.parentId,
        limit: options.limit + 1,
        after,
      });
      const page = rows.slice(0, options.limit);
      const last = page.at(-1);
      const nextCursor =
        rows.length > options.limit && last
          ? Buffer.from(JSON.stringify({ d: last.deleted_at, k: last.item_key })).toString('base64url')
          : null;
      return { items: page.map(trashedOf), nextCursor };
    },
  };
}

export type Trash = ReturnType<typeof createTrash>;

/** Records an event of a restore or purge in the write's transaction (the service's recorder). */
export type TrashRecord = <K extends keyof TrashEvents>(type: K, data: TrashEvents[K]) => Promise<void>;

/** A service's recorder, whose events include the trash's, recording in `trx`. */
export const trashRecordOf =
  <M extends TrashEvents>(events: EventRecorder<M>, trx: Db): TrashRecord =>
  (type, data) =>
    events.record(trx, type, data as M[typeof type]);

/**
 * What every trashable resource's service does with the trash, the same way: restore, purge, read in
 * the trash and list it, with DECISIONS §19's permissions and events.
 */
export function trashActions(trash: Trash, resource: TrashedResource) {
  const notFound = (id: number) => AppError.notFound(`${resource[0]!.toUpperCase()}${resource.slice(1)} ${id}`);
  return {
    /**
     * `POST .../restore`: 409 NOT_DELETED when the item is live, 404 when it is nowhere, 403 unless
     * the caller may see it in the trash; emits `*.restored` for each item it brings back. The item's row.
     */
    async restore(
      trx: Db,
      principal: Principal,
      id: number,
      live: boolean,
      record: TrashRecord,
    ): Promise<Record<string, unknown>> {
      if (live) throw new AppError('NOT_DELETED', `${resource} ${id} is not in the trash`);
      const found = await trash.findTrashed(trx, resource, id);
      if (!found) throw notFound(id);
      assertMaySeeTrash(principal, resource, found.ownerId ?? undefined);
      const items = (await trash.restore(trx, resource, id))!;
      await recordTrashEvents(record, items, 'restored');
      return items[0]!.row;
    },

    /** `DELETE ?permanent=true` of an item in the trash: removed for good with its deletion; false when not there. */
    async purge(trx: Db, id: number, record: TrashRecord): Promise<boolean> {
      const items = await trash.purge(trx, resource, id);
      if (!items) return false;
      await recordTrashEvents(record, items, 'purged');
      return true;
    },

    /** `GET ...?trashed=include` of an item not live: the trashed item (403 unless the caller may see it), or 404. */
    async read(db: Db, principal: Principal, id: number): Promise<TrashedItem> {
      const found = await trash.findTrashed(db, resource, id);
      if (!found) throw notFound(id);
      assertMaySeeTrash(principal, resource, found.ownerId ?? undefined);
      return found;
    },

    /** `?trashed=only`: admins see the whole trash of the resource; an author their own posts or comments; others 403. */
    list(
      db: Db,
      principal: Principal,
      options: { limit: number; cursor?: string | undefined; parentId?: number | undefined },
    ) {
      if (!isAdmin(principal) && resource !== 'post' && resource !== 'comment') assertMaySeeTrash(principal, resource);
      const ownerId = isAdmin(principal) ? undefined : principal.userId;
      return trash.list(db, resource, { ...options, ownerId });
    },
  };
}

/** A non-admin's `?permanent=true` is 403 (DECISIONS §19). */
export function assertMayPurge(principal: Principal, permanent: boolean | undefined): void {
  if (permanent && !isAdmin(principal)) throw AppError.forbidden('Only an admin deletes permanently');
}

function parseTrashCursor(cursor: string): { deletedAt: string; key: string } {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { d?: unknown; k?: unknown };
    if (typeof parsed.d === 'string' && typeof parsed.k === 'string' && !Number.isNaN(Date.parse(parsed.d))) {
      return { deletedAt: parsed.d, key: parsed.k };
    }
  } catch {
    // answered below
  }
  throw AppError.validation([{ field: 'cursor', message: 'is not a cursor this list issued' }]);
}

/**
 * Who may see an item in the trash (`?trashed=`) and restore it: admins; the owner of a post or comment
 * (its author). Throws 403 otherwise.
 */
export function assertMaySeeTrash(principal: Principal, resource: TrashedResource, ownerId?: number): void {
  if (isAdmin(principal)) return;
  if ((resource === 'post' || resource === 'comment') && ownerId === principal.userId) return;
  throw AppError.forbidden('Only an admin (or the author, for their own posts and comments) sees the trash');
}
