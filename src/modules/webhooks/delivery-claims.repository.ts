import type { Db } from '../../core/db/database.ts';
import { backgroundTransaction } from '../events/background-writes.ts';
import type { EventRow } from '../events/events.table.ts';
import { probeDue, readClaimCandidates, type ClaimCandidate } from './deliveries.statements.ts';
import type { WebhookDeliveryRow } from './webhooks.table.ts';

/**
 * The claim's SQL (deliveries.repository.ts has the rest of the deliveries'): the due probe, the claim
 * with each delivery's event read from the outbox in its candidates statement, and the deliveries claimed
 * with nothing left to send.
 */

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
): Promise<ClaimedRow[]> {
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
    const chosen = new Map<number, ClaimCandidate>();
    for (const row of candidates) {
      if (chosen.size >= claim.limit) break;
      const left = room.get(row.endpoint_id) ?? claim.perEndpoint;
      if (left <= 0) continue;
      room.set(row.endpoint_id, left - 1);
      chosen.set(Number(row.id), row);
    }
    if (chosen.size === 0) return [];
    const rows = await trx
      .updateTable('webhook_deliveries')
      .set({ claimed_by: claim.holder, claimed_until: claim.leaseUntil })
      .where('id', 'in', [...chosen.keys()])
      .where('status', '=', 'pending')
      .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', claim.now)]))
      .returningAll()
      .execute();
    return rows.map((row) => ({ row, event: keptEvent(row, chosen.get(Number(row.id))!) }));
  });
}

/** A claimed delivery, with its event as the outbox keeps it (undefined once purged). */
export interface ClaimedRow {
  row: WebhookDeliveryRow;
  event: EventRow | undefined;
}

function keptEvent(row: WebhookDeliveryRow, candidate: ClaimCandidate): EventRow | undefined {
  if (candidate.event_data === null || candidate.event_created_at === null) return undefined;
  return {
    tx: row.event_tx,
    seq: row.event_seq,
    event_id: row.event_id,
    type: row.event_type,
    resource: row.resource,
    data: candidate.event_data,
    created_at: candidate.event_created_at,
    import_id: candidate.event_import_id,
    traceparent: candidate.event_traceparent,
    tracestate: candidate.event_tracestate,
  };
}

/**
 * Deliveries claimed with nothing to send (no copy, and their event purged meanwhile: a replay or a hand
 * retry that raced the purge) are dead at once, saying why.
 */
export async function recordUnsendable(db: Db, ids: number[], holder: string, at: string): Promise<number> {
  if (ids.length === 0) return 0;
  const result = await db
    .updateTable('webhook_deliveries')
    .set({
      status: 'dead',
      last_error: 'event no longer kept',
      next_attempt_at: null,
      claimed_by: null,
      claimed_until: null,
      last_attempt_at: at,
    })
    .where('id', 'in', ids)
    .where('claimed_by', '=', holder)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
