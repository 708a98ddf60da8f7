import fastJsonPatch, { type Operation } from 'fast-json-patch';
import type { Principal } from '../../core/access/principal.ts';
import { now } from '../../core/clock.ts';
import type { Db } from '../../core/db/database.ts';
import { AppError } from '../../core/errors/app-error.ts';
import { currentActor, currentRequestId } from '../../core/http/write-origin.ts';
import type { AlsoWritten, ChangeWriter } from '../events/change-writer.ts';
import * as repo from './revisions.repository.ts';
import type { AuditFilters, RevisionWithPrevious } from './revisions.repository.ts';
import type { RevisionRow } from './revisions.table.ts';

/**
 * Revisions and the audit (DECISIONS §19). Every `user|post|comment|product` event is written with a
 * revision in its own transaction: the events service calls `changeWriter` (registered by the module
 * descriptor), so every write path (REST, GraphQL, batches, writes by filter, imports, workers) has one.
 * A revision keeps the item's state (its event's `data`, an admin's `GET /api/v2` view, without `_links`
 * and the trash fields); `changes` (RFC 6902) is computed when read, from the item's previous revision.
 */

export const REVISION_RESOURCES = ['user', 'post', 'comment', 'product'] as const;
export type RevisionResource = (typeof REVISION_RESOURCES)[number];
export const REVISION_OPS = ['create', 'update', 'delete', 'restore', 'revert', 'purge', 'erase'] as const;

const OP_OF_ACTION: Record<string, string> = {
  created: 'create',
  updated: 'update',
  deleted: 'delete',
  restored: 'restore',
  purged: 'purge',
  erased: 'erase',
};
/** The ops whose revision is the event's `data` (no read of the item's latest state). */
const STATE_OPS = new Set(['create', 'update', 'revert']);
/** The kinds whose deletion takes others with it into the trash (a user's posts and comments, a post's comments). */
const CASCADING = new Set(['user', 'post']);
const RESOURCES = new Set<string>(REVISION_RESOURCES);
/** Never part of a state: the links, the trash's fields, and (defensively: no view has one) a password. */
const LEFT_OUT = new Set(['_links', 'deletedAt', 'deletedBy', 'deletionId', 'purgeAt', 'password', 'passwordHash']);

const PAGE = { defaultLimit: 20, maxLimit: 100 };

/**
 * A restore of a revision (`POST .../revisions/{rev}/restore`): the update it makes, under its request id,
 * is op `revert`. (The update runs as the item's own PATCH, injected in the process: by the request id,
 * which that PATCH keeps, since the injected request does not carry an async context across.)
 */
const reverting = new Map<string, number>();
export async function asRevert<T>(requestId: string, work: () => Promise<T>): Promise<T> {
  reverting.set(requestId, (reverting.get(requestId) ?? 0) + 1);
  try {
    return await work();
  } finally {
    const left = reverting.get(requestId)! - 1;
    if (left === 0) reverting.delete(requestId);
    else reverting.set(requestId, left);
  }
}
const isReverting = () => {
  const requestId = currentRequestId();
  return requestId !== null && reverting.has(requestId);
};

function stateOf(data: Record<string, unknown>): Record<string, unknown> {
  const state: Record<string, unknown> = {};
  for (const key in data) if (!LEFT_OUT.has(key)) state[key] = data[key];
  return state;
}

function rowOf(resource: string, itemId: number, op: string, state: string) {
  const actor = currentActor();
  return {
    resource,
    item_id: itemId,
    op,
    at: now(),
    actor_type: actor.type,
    actor_id: actor.id,
    request_id: currentRequestId(),
    state,
  };
}

/** `resource.action` of an item's event, as a revision's resource and op; undefined for other events. */
function revisionOf(type: string, data: Record<string, unknown>) {
  const [resource, action] = type.split('.') as [string, string];
  const op = OP_OF_ACTION[action];
  if (!RESOURCES.has(resource) || op === undefined || typeof data.id !== 'number') return undefined;
  return { resource, itemId: data.id, op: op === 'update' && reverting.size > 0 && isReverting() ? 'revert' : op };
}

export interface RevisionSettings {
  /** REVISIONS_KEEP: the newest kept per item. */
  keep: number;
  /** REVISIONS_RETENTION_DAYS (decimals allowed). */
  retentionDays: number;
}

export interface RevisionView {
  rev: number;
  at: string;
  op: string;
  actor: { type: string; id: number | null };
  requestId: string | null;
  changes: Operation[];
}

export interface RevisionPage<T> {
  items: T[];
  nextCursor: string | null;
}

const encodeCursor = (id: number) => Buffer.from(`rv1.${id}`).toString('base64url');
function decodeCursor(cursor: string | undefined): number | undefined {
  if (cursor === undefined) return undefined;
  const match = /^rv1\.(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString());
  if (!match) throw AppError.validation([{ field: 'cursor', message: 'is not a cursor this list gave' }]);
  return Number(match[1]);
}

function checkLimit(limit: number | undefined): number {
  const value = limit ?? PAGE.defaultLimit;
  if (!Number.isInteger(value) || value < 1 || value > PAGE.maxLimit)
    throw AppError.validation([{ field: 'limit', message: `must be an integer from 1 to ${PAGE.maxLimit}` }]);
  return value;
}

/** What `reader` may see of a state: a user's e-mail only by admins and the user (as the item's own read). */
function visibleState(resource: string, state: Record<string, unknown>, reader: Principal) {
  if (resource === 'user' && reader.role !== 'admin' && reader.userId !== state.id && 'email' in state)
    return { ...state, email: null };
  return state;
}

export function createRevisions(db: Db, settings: RevisionSettings) {
  /** The last revision the count rule of retention has looked at (this process). */
  let keptUpTo = 0;
  /**
   * The revisions of changes of one type whose event carries only the item's id (a delete, restore, purge
   * or erase): each item as it was (an erasure's after scrubbing), so `changes` is []; one statement for
   * them all. An item with no revision (written before revisions were) has none to take it from: none is
   * written.
   */
  async function writeFromLatest(trx: Db, resource: string, op: string, itemIds: readonly number[]) {
    await repo.insertLatestStateRevisions(trx, resource, itemIds, rowOf(resource, itemIds[0]!, op, ''));
    // What the deletion took into the trash with it has no event of its own: a `delete` revision each.
    if (op === 'delete' && CASCADING.has(resource))
      for (const itemId of itemIds)
        await repo.insertCascadeRevisions(trx, resource, itemId, rowOf(resource, itemId, op, ''));
  }
  const changeWriter: ChangeWriter = {
    async written(trx, type, data) {
      const revision = revisionOf(type, data);
      if (!revision) return;
      const { resource, itemId, op } = revision;
      if (STATE_OPS.has(op)) await repo.insertRevision(trx, rowOf(resource, itemId, op, JSON.stringify(stateOf(data))));
      else await writeFromLatest(trx, resource, op, [itemId]);
    },
    async writtenEach(trx, type, datas) {
      const revisions = datas.flatMap((data) => revisionOf(type, data) ?? []);
      const first = revisions[0];
      if (first === undefined) return;
      // One type: one resource and one op (a revert is every update of its request).
      if (STATE_OPS.has(first.op)) for (const data of datas) await changeWriter.written(trx, type, data);
      else
        await writeFromLatest(
          trx,
          first.resource,
          first.op,
          revisions.map((revision) => revision.itemId),
        );
    },
    stateRow(type, data) {
      const revision = revisionOf(type, data);
      if (revision === undefined || !STATE_OPS.has(revision.op)) return undefined;
      return {
        insert: repo.revisionInsert as unknown as AlsoWritten['insert'],
        row: rowOf(revision.resource, revision.itemId, revision.op, JSON.stringify(stateOf(data))),
      };
    },
  };

  function viewOf(row: RevisionWithPrevious, reader: Principal): RevisionView {
    const previous =
      row.previous_state === null ? {} : visibleState(row.resource, JSON.parse(row.previous_state), reader);
    const current = visibleState(row.resource, JSON.parse(row.state), reader);
    return {
      rev: row.id,
      at: row.at,
      op: row.op,
      actor: { type: row.actor_type, id: row.actor_id },
      requestId: row.request_id,
      changes: fastJsonPatch.compare(previous, current),
    };
  }

  /** Admins; the user themselves; a post's or comment's author. Else 403; an item never revised, 404. */
  async function assertMayRead(
    reader: Principal | null,
    resource: RevisionResource,
    itemId: number,
  ): Promise<Principal> {
    if (!reader) throw AppError.unauthorized();
    const latest = await repo.findLatestState(db, resource, itemId);
    if (latest === undefined) throw AppError.notFound(`${resource[0]!.toUpperCase()}${resource.slice(1)}`);
    if (reader.role === 'admin') return reader;
    const state = JSON.parse(latest) as Record<string, unknown>;
    const owner = resource === 'user' ? itemId : resource === 'product' ? undefined : state.authorId;
    if (owner !== reader.userId) throw AppError.forbidden('Only its owner or an administrator may read its history');
    return reader;
  }

  return {
    changeWriter,

    /** An item's revisions, newest first, by cursor. */
    async list(
      reader: Principal | null,
      resource: RevisionResource,
      itemId: number,
      query: { limit?: number | undefined; cursor?: string | undefined },
    ): Promise<RevisionPage<RevisionView>> {
      const limit = checkLimit(query.limit);
      const before = decodeCursor(query.cursor);
      const principal = await assertMayRead(reader, resource, itemId);
      const rows = await repo.listItemRevisions(db, resource, itemId, before, limit + 1);
      const items = rows.slice(0, limit).map((row) => viewOf(row, principal));
      return { items, nextCursor: rows.length > limit ? encodeCursor(items.at(-1)!.rev) : null };
    },

    /** The whole item as it was at revision `rev`. */
    async get(
      reader: Principal | null,
      resource: RevisionResource,
      itemId: number,
      rev: number,
    ): Promise<{ revision: RevisionRow; state: Record<string, unknown> }> {
      const principal = await assertMayRead(reader, resource, itemId);
      const revision = await repo.findRevision(db, resource, itemId, rev);
      if (!revision) throw AppError.notFound('Revision');
      return { revision, state: visibleState(resource, JSON.parse(revision.state), principal) };
    },

    /** The audit (admins): every revision newest first, filtered, by cursor. */
    async audit(
      reader: Principal | null,
      query: AuditFilters & { limit?: number | undefined; cursor?: string | undefined },
    ): Promise<RevisionPage<RevisionView & { resource: string; itemId: number }>> {
      if (!reader) throw AppError.unauthorized();
      if (reader.role !== 'admin') throw AppError.forbidden('The audit is for administrators');
      const limit = checkLimit(query.limit);
      const before = decodeCursor(query.cursor);
      const filters: AuditFilters = { ...query };
      for (const field of ['from', 'to'] as const) {
        const value = query[field];
        if (value === undefined) continue;
        const time = Date.parse(value);
        if (!/^\d{4}-\d\d-\d\d/.test(value) || Number.isNaN(time))
          throw AppError.validation([{ field, message: 'must be a date-time (RFC 3339)' }]);
        filters[field] = new Date(time).toISOString();
      }
      const rows = await repo.listAudit(db, filters, before, limit + 1);
      const items = rows
        .slice(0, limit)
        .map((row) => ({ ...viewOf(row, reader), resource: row.resource, itemId: row.item_id }));
      return { items, nextCursor: rows.length > limit ? encodeCursor(items.at(-1)!.rev) : null };
    },

    /**
     * Retention: revisions older than REVISIONS_RETENTION_DAYS, and each item's beyond its newest
     * REVISIONS_KEEP. The audit is the revisions: what this removes leaves the audit too. The count rule
     * looks only at the items written since the last turn (walked by the key from where it stopped, from
     * the start once per process), in one statement through the item index: a turn costs what was
     * written, not the table, and one statement, not one per item. True when there may be more.
     */
    async sweep(batch = 5000): Promise<boolean> {
      const cutoff = new Date(Date.now() - settings.retentionDays * 86_400_000).toISOString();
      const aged = await repo.deleteRevisionsBefore(db, cutoff, batch);
      const written = await repo.revisionKeysAfter(db, keptUpTo, batch);
      if (written.last !== undefined) {
        await repo.deleteRevisionsBeyondKeep(db, keptUpTo, written.last, settings.keep);
        keptUpTo = written.last;
      }
      return aged === batch || written.count === batch;
    },
  };
}

export type Revisions = ReturnType<typeof createRevisions>;
