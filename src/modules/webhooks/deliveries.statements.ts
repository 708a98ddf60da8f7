import { sql } from 'kysely';
import { dialectOf, type Db } from '../../core/db/database.ts';
import { readRows } from '../../core/db/fast-read.ts';
import { shapedStatement, type BoundParams } from '../../core/db/statement-cache.ts';

/**
 * The delivery statements every turn of every worker runs (the claim's candidates, the due probe, the
 * successes' update), compiled once per shape (statement-cache.ts) rather than built by Kysely on each
 * turn, and run here; deliveries.repository.ts and delivery-claims.repository.ts call them.
 */

/**
 * `'pending'` written into the statement, not bound: the partial indexes (`... where status = 'pending'`:
 * the due list, each resource's line, the oldest position) serve only a statement whose condition is
 * that literal. Bound, PostgreSQL's generic plan of the prepared claim could not use them and checked
 * each candidate's line by scanning every pending delivery of its endpoint (434 ms at 1,655 pending).
 */
export const PENDING = sql.lit<'pending'>('pending');

/**
 * The claim's candidates (delivery-claims.repository.ts, `claimDueDeliveries`): pending, due, not held by a live
 * lease, of an enabled endpoint, the head of their line (no earlier pending delivery of the same endpoint
 * and resource), not of an endpoint in `full`, oldest due first; PostgreSQL locks each row read
 * (`FOR UPDATE SKIP LOCKED`). Compiled once per dialect and number of full endpoints (statement-cache.ts):
 * Kysely built and compiled this statement on every turn of every worker, a visible share of a claim's
 * CPU.
 */
export function readClaimCandidates(trx: Db, params: ClaimCandidatesParams): Promise<ClaimCandidate[]> {
  return readRows(trx, claimCandidates(trx, undefined, params));
}

/**
 * A candidate, with what the outbox keeps of its event (all null once the event is purged): the payload
 * is read here, in the claim's own statement, not copied into each delivery at its fan-out.
 */
export interface ClaimCandidate {
  id: number;
  endpoint_id: number;
  event_data: string | null;
  event_created_at: string | null;
  event_import_id: number | null;
  event_traceparent: string | null;
  event_tracestate: string | null;
}

type ClaimCandidatesParams = { now: string; full: readonly number[] | undefined; limit: number };

const claimCandidates = shapedStatement({
  build: (db, _shape: undefined, { now, full, limit }: BoundParams<ClaimCandidatesParams>) => {
    let candidates = db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
      // The event by its place in the feed (the feed order index): one probe per candidate.
      .leftJoin('events as v', (join) => join.onRef('v.tx', '=', 'd.event_tx').onRef('v.seq', '=', 'd.event_seq'))
      .select([
        'd.id',
        'd.endpoint_id',
        'v.data as event_data',
        'v.created_at as event_created_at',
        'v.import_id as event_import_id',
        'v.traceparent as event_traceparent',
        'v.tracestate as event_tracestate',
      ])
      .where('e.status', '=', 'enabled')
      .where('d.status', '=', PENDING)
      .where('d.next_attempt_at', '<=', now)
      .where((eb) => eb.or([eb('d.claimed_until', 'is', null), eb('d.claimed_until', '<', now)]))
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('webhook_deliveries as p')
              .select(sql`1`.as('one'))
              .whereRef('p.endpoint_id', '=', 'd.endpoint_id')
              .whereRef('p.resource', '=', 'd.resource')
              .where('p.status', '=', PENDING)
              .where((inner) =>
                inner(inner.refTuple('p.event_tx', 'p.event_seq'), '<', inner.refTuple('d.event_tx', 'd.event_seq')),
              ),
          ),
        ),
      )
      .orderBy('d.next_attempt_at')
      .orderBy('d.id')
      .limit(limit);
    if (full !== undefined) candidates = candidates.where('d.endpoint_id', 'not in', full);
    return dialectOf(db) === 'postgres' ? candidates.forUpdate(['d']).skipLocked() : candidates;
  },
});

/** `anyDue`'s probe: whether a pending delivery is due at `now`, on the due index. */
export async function probeDue(db: Db, now: string): Promise<boolean> {
  return (await readRows(db, dueProbe(db, undefined, { now }))).length > 0;
}

const dueProbe = shapedStatement({
  build: (db, _shape: undefined, { now }: BoundParams<{ now: string }>) =>
    db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('status', '=', PENDING)
      .where('next_attempt_at', '<=', now)
      .limit(1),
});

/**
 * `recordSucceeded`'s update: the successes of `ids` still held by `holder`, one statement per turn;
 * the ids it updated.
 */
export async function updateSucceeded(db: Db, params: SuccessesParams): Promise<number[]> {
  const rows = await readRows(db, successesUpdate(db, undefined, params));
  return rows.map((row) => Number(row.id));
}

type SuccessesParams = { ids: readonly number[]; holder: string; at: string; responseStatus: number };

const successesUpdate = shapedStatement({
  build: (db, _shape: undefined, { ids, holder, at, responseStatus }: BoundParams<SuccessesParams>) =>
    db
      .updateTable('webhook_deliveries')
      .set((eb) => ({
        status: 'succeeded',
        attempts: eb('attempts', '+', 1),
        last_attempt_at: at,
        last_response_status: responseStatus,
        last_error: null,
        next_attempt_at: null,
        claimed_by: null,
        claimed_until: null,
        // A copy kept while it was dead is not needed once it succeeded.
        payload: null,
      }))
      .where('id', 'in', ids)
      .where('claimed_by', '=', holder)
      .where('status', '=', 'pending')
      .returning('id'),
});
