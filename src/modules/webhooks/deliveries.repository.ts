import { sql } from 'kysely';
import { dialectOf, type Db } from '../../core/db/database.ts';
import { backgroundTransaction } from '../events/background-writes.ts';
import { rewriteJsonCopies } from '../../core/db/json-copies.ts';
import type { Rewrite, StoredValues } from '../events/stored-copies.ts';
import type { PageWindow } from '../../core/pagination.ts';
import type { DeliveryStatus } from './webhook.ts';
import type { NewWebhookDeliveryRow, WebhookDeliveryRow } from './webhooks.table.ts';
import { PENDING, probeDue, readClaimCandidates, updateSucceeded } from './deliveries.statements.ts';

/** All SQL of webhook deliveries: the fan-out's inserts, the claim, the outcomes, the log. */

/**
 * Inserts the fan-out's deliveries; a pair (endpoint, event) already there is left as it is. Returns
 * the id of each row inserted, with its pair.
 */
export async function insertDeliveries(
  trx: Db,
  rows: NewWebhookDeliveryRow[],
): Promise<Array<{ id: number; endpoint_id: number; event_id: string }>> {
  if (rows.length === 0) return [];
  return trx
    .insertInto('webhook_deliveries')
    .values(rows)
    .onConflict((oc) => oc.columns(['endpoint_id', 'event_id']).doNothing())
    .returning(['id', 'endpoint_id', 'event_id'])
    .execute();
}

/** The lines (endpoint, resource) among these with a pending delivery (a new one waits behind it): the line index. */
export async function findPendingLines(
  trx: Db,
  endpointIds: readonly number[],
  resources: readonly string[],
): Promise<Array<{ endpoint_id: number; resource: string }>> {
  if (endpointIds.length === 0 || resources.length === 0) return [];
  return trx
    .selectFrom('webhook_deliveries')
    .select(['endpoint_id', 'resource'])
    .distinct()
    .where('status', '=', PENDING)
    .where('endpoint_id', 'in', endpointIds)
    .where('resource', 'in', resources)
    .execute();
}

/** A replay: the pair's delivery is pending again from `at` (a new one when the endpoint never had it). */
export async function upsertReplayed(db: Db, rows: NewWebhookDeliveryRow[]): Promise<number> {
  if (rows.length === 0) return 0;
  const at = rows[0]!.created_at;
  const result = await db
    .insertInto('webhook_deliveries')
    .values(rows)
    .onConflict((oc) =>
      oc.columns(['endpoint_id', 'event_id']).doUpdateSet({
        status: 'pending',
        attempts: 0,
        next_attempt_at: at,
        claimed_by: null,
        claimed_until: null,
      }),
    )
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? rows.length);
}

/**
 * Renews PostgreSQL's statistics of the deliveries (SQLite: nothing; its planner keeps none of this
 * table, and an ANALYZE there would read it all holding the one writer). The claim is planned on them:
 * while they say pending deliveries are rare, its candidates statement reads every pending delivery of
 * an endpoint, and checks each one's line by scanning them all again (a claim hit the 15 s statement
 * timeout at 20,000 pending). Without permission to analyze, PostgreSQL warns and goes on.
 */
export async function renewStatistics(db: Db): Promise<void> {
  if (dialectOf(db) === 'postgres') await sql`analyze webhook_deliveries`.execute(db);
}

/**
 * Whether any pending delivery is due at `now` (whatever its endpoint, lease or line): a read on the due
 * index, so that a poll with nothing to do opens no transaction (on SQLite a transaction takes the one
 * connection from every request: a claim each second cost W3 13 % of its throughput there).
 */
export function anyDue(db: Db, now: string): Promise<boolean> {
  return probeDue(db, now);
}

export interface ClaimRequest {
  holder: string;
  now: string;
  leaseUntil: string;
  /** Most deliveries to claim. */
  limit: number;
  /** How many more each endpoint may have in flight here (an endpoint not listed: `perEndpoint`). */
  room: ReadonlyMap<number, number>;
  perEndpoint: number;
}

/**
 * Claims due deliveries for `holder` until `leaseUntil`: pending, due, not held by a live lease, of an
 * enabled endpoint, and the head of their line (no earlier pending delivery of the same endpoint and
 * resource), at most `room` per endpoint. The update repeats the claimable condition, so of two
 * instances racing for a delivery only one gets it. PostgreSQL: candidates are picked with
 * `FOR UPDATE SKIP LOCKED` in a short transaction of their own (no transaction stays open while
 * sending); SQLite serialises writers, so the pick and the update cannot interleave with another claim.
 */
export async function claimDueDeliveries(
  db: Db,
  claim: ClaimRequest,
  /** Writes to commit with the claim (the successes answered since the last one): one commit for both. */
  before: (trx: Db) => Promise<void> = async () => {},
): Promise<WebhookDeliveryRow[]> {
  const full = [...claim.room].filter(([, room]) => room <= 0).map(([id]) => id);
  // Run again whole when PostgreSQL aborts it as one side of a deadlock (a replay's upsert of the same rows).
  return backgroundTransaction(db, async (trx) => {
    await before(trx);
    const candidates = await readClaimCandidates(trx, {
      now: claim.now,
      full: full.length > 0 ? full : undefined,
      // No more than one endpoint could take (each row read is locked on PostgreSQL): when the first
      // endpoint in line fills its room, the caller claims again without it (it is then `full`).
      limit: Math.min(claim.limit, Math.max(claim.perEndpoint, ...claim.room.values())),
    });
    const room = new Map(claim.room);
    const chosen: number[] = [];
    for (const row of candidates) {
      if (chosen.length >= claim.limit) break;
      const left = room.get(row.endpoint_id) ?? claim.perEndpoint;
      if (left <= 0) continue;
      room.set(row.endpoint_id, left - 1);
      chosen.push(Number(row.id));
    }
    if (chosen.length === 0) return [];
    return trx
      .updateTable('webhook_deliveries')
      .set({ claimed_by: claim.holder, claimed_until: claim.leaseUntil })
      .where('id', 'in', chosen)
      .where('status', '=', 'pending')
      .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', claim.now)]))
      .returningAll()
      .execute();
  });
}

export interface AttemptOutcome {
  status: DeliveryStatus;
  at: string;
  responseStatus: number | null;
  error: string | null;
  nextAttemptAt: string | null;
}

/** Records an attempt, only while `holder` still holds the delivery (a superseded sender's answer is dropped). */
export async function recordAttempt(db: Db, id: number, holder: string, outcome: AttemptOutcome): Promise<boolean> {
  const result = await db
    .updateTable('webhook_deliveries')
    .set((eb) => ({
      status: outcome.status,
      attempts: eb('attempts', '+', 1),
      last_attempt_at: outcome.at,
      last_response_status: outcome.responseStatus,
      last_error: outcome.error,
      next_attempt_at: outcome.nextAttemptAt,
      claimed_by: null,
      claimed_until: null,
    }))
    .where('id', '=', id)
    .where('claimed_by', '=', holder)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Records the successful attempts of `ids` at once (one statement for a whole turn of answers), each
 * only while `holder` still holds it; returns the ids recorded.
 */
export async function recordSucceeded(
  db: Db,
  ids: number[],
  holder: string,
  outcome: { at: string; responseStatus: number },
): Promise<number[]> {
  return updateSucceeded(db, { ids, holder, at: outcome.at, responseStatus: outcome.responseStatus });
}

/** Gives claimed deliveries back untried (the process is stopping, or a lease is too short to send), so another sender takes them at once. */
export async function releaseDeliveries(db: Db, ids: number[], holder: string): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('webhook_deliveries')
    .set({ claimed_by: null, claimed_until: null })
    .where('id', 'in', ids)
    .where('claimed_by', '=', holder)
    .execute();
}

export function findDelivery(db: Db, endpointId: number, id: number): Promise<WebhookDeliveryRow | undefined> {
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('id', '=', id)
    .where('endpoint_id', '=', endpointId)
    .executeTakeFirst();
}

/** A manual retry: pending again, due at `at`, with a fresh schedule. */
export function retryDelivery(db: Db, id: number, at: string): Promise<WebhookDeliveryRow | undefined> {
  return db
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', attempts: 0, next_attempt_at: at, claimed_by: null, claimed_until: null })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

export function listDeliveries(
  db: Db,
  endpointId: number,
  status: DeliveryStatus | undefined,
  window: PageWindow,
): Promise<WebhookDeliveryRow[]> {
  let query = db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', endpointId);
  if (status) query = query.where('status', '=', status);
  return query.orderBy('id', 'desc').limit(window.limit).offset(window.offset).execute();
}

export async function countDeliveries(db: Db, endpointId: number, status: DeliveryStatus | undefined): Promise<number> {
  let query = db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('endpoint_id', '=', endpointId);
  if (status) query = query.where('status', '=', status);
  return Number((await query.executeTakeFirstOrThrow()).count);
}

/** The feed place of the oldest pending delivery's event: the retention purge keeps it and what follows. */
export async function findOldestPendingPosition(db: Db): Promise<{ tx: number; seq: number } | undefined> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select(['event_tx', 'event_seq'])
    .where('status', '=', PENDING)
    .orderBy('event_tx')
    .orderBy('event_seq')
    .limit(1)
    .executeTakeFirst();
  return row && { tx: Number(row.event_tx), seq: Number(row.event_seq) };
}

/** Deliveries waiting for a first or next attempt, for `/metrics`. */
export async function countPending(db: Db): Promise<number> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('status', '=', PENDING)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/**
 * Erasure (DECISIONS §19): the deliveries' saved payloads (the event JSON as sent, or still to send) that may
 * hold the person's values, rewritten where they do.
 */
export const scrubPayloads = (trx: Db, values: StoredValues, rewrite: Rewrite): Promise<void> =>
  rewriteJsonCopies(trx, { table: 'webhook_deliveries', key: 'id', column: 'payload' }, values, rewrite);
