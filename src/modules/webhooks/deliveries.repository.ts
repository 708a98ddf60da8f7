import { sql } from 'kysely';
import { dialectOf, type Db } from '../../core/db/database.ts';
import { rewriteJsonCopies } from '../../core/db/json-copies.ts';
import type { Rewrite, StoredValues } from '../events/stored-copies.ts';
import type { PageWindow } from '../../core/pagination.ts';
import type { DeliveryStatus } from './webhook.ts';
import type { NewWebhookDeliveryRow, WebhookDeliveryRow } from './webhooks.table.ts';
import { PENDING, updateSucceeded } from './deliveries.statements.ts';

/** All SQL of webhook deliveries but the claim's (delivery-claims.repository.ts): the fan-out's inserts, the outcomes, the log. */

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

export interface AttemptOutcome {
  status: DeliveryStatus;
  at: string;
  responseStatus: number | null;
  error: string | null;
  nextAttemptAt: string | null;
  /** The event JSON sent, kept in the row when it dies (a hand retry may come after the event is purged). */
  payload?: string;
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
      ...(outcome.payload === undefined ? {} : { payload: outcome.payload }),
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

/**
 * A manual retry: pending again, due at `at`, with a fresh schedule; only while there is something to send
 * (the copy a dead delivery keeps, or its event still kept): undefined otherwise.
 */
export function retryDelivery(db: Db, id: number, at: string): Promise<WebhookDeliveryRow | undefined> {
  return db
    .updateTable('webhook_deliveries as d')
    .set({ status: 'pending', attempts: 0, next_attempt_at: at, claimed_by: null, claimed_until: null })
    .where('d.id', '=', id)
    .where((eb) =>
      eb.or([
        eb('d.payload', 'is not', null),
        eb.exists(
          eb
            .selectFrom('events as v')
            .select(sql`1`.as('one'))
            .whereRef('v.tx', '=', 'd.event_tx')
            .whereRef('v.seq', '=', 'd.event_seq'),
        ),
      ]),
    )
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
  // A delivery without a copy (`payload` null: its event is read from the outbox, scrubbed there) has nothing to rewrite.
  rewriteJsonCopies(trx, { table: 'webhook_deliveries', key: 'id', column: 'payload' }, values, (json) =>
    json === 'null' ? json : rewrite(json),
  );
