import { sql, type CompiledQuery } from 'kysely';
import { dialectOf, type Db } from '../../core/db/database.ts';
import { statementCache } from '../../core/db/statement-cache.ts';

/**
 * The delivery statements every turn of every worker runs (the claim's candidates, the due probe, the
 * successes' update), compiled once per shape (statement-cache.ts) rather than built by Kysely on each
 * turn; deliveries.repository.ts runs them.
 */

/**
 * `'pending'` written into the statement, not bound: the partial indexes (`... where status = 'pending'`:
 * the due list, each resource's line, the oldest position) serve only a statement whose condition is
 * that literal. Bound, PostgreSQL's generic plan of the prepared claim could not use them and checked
 * each candidate's line by scanning every pending delivery of its endpoint (434 ms at 1,655 pending).
 */
export const PENDING = sql.lit<'pending'>('pending');

/**
 * The claim's candidates (deliveries.repository.ts, `claimDueDeliveries`): pending, due, not held by a live
 * lease, of an enabled endpoint, the head of their line (no earlier pending delivery of the same endpoint
 * and resource), not of an endpoint in `full`, oldest due first; PostgreSQL locks each row read
 * (`FOR UPDATE SKIP LOCKED`). Compiled once per dialect and number of full endpoints (statement-cache.ts):
 * Kysely built and compiled this statement on every turn of every worker, ~25 µs of CPU a claim
 * (bench/RESULTS.md, session 24).
 */
export const claimCandidates: (
  db: Db,
  shape: undefined,
  params: { now: string; full: readonly number[] | undefined; limit: number },
) => CompiledQuery<{ id: number; endpoint_id: number }> = statementCache({
  build: (db, _shape: undefined, { now, full, limit }) => {
    let candidates = db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
      .select(['d.id', 'd.endpoint_id'])
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
  keyOf: () => 'claim candidates',
});

/** `anyDue`'s probe: one pending delivery due at `now`, on the due index. */
export const dueProbe: (db: Db, shape: undefined, params: { now: string }) => CompiledQuery<{ id: number }> =
  statementCache({
    build: (db, _shape: undefined, { now }) =>
      db
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('status', '=', PENDING)
        .where('next_attempt_at', '<=', now)
        .limit(1),
    keyOf: () => 'due probe',
  });

/** `recordSucceeded`'s update: the successes of `ids` still held by `holder`, one statement per turn. */
export const successesUpdate: (
  db: Db,
  shape: undefined,
  params: { ids: readonly number[]; holder: string; at: string; responseStatus: number },
) => CompiledQuery<{ id: number }> = statementCache({
  build: (db, _shape: undefined, { ids, holder, at, responseStatus }) =>
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
      }))
      .where('id', 'in', ids)
      .where('claimed_by', '=', holder)
      .where('status', '=', 'pending')
      .returning('id'),
  keyOf: () => 'successes',
});
