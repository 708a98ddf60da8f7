import type { Db } from '../../core/db/database.ts';
import type { TraceContext } from '../../core/tracing/tracing.ts';
import * as deliveries from './deliveries.repository.ts';
import type { ClaimedDelivery, ClaimRoom } from './delivery-fan-out.ts';
import { settling, type SuccessLog } from './delivery-successes.ts';
import { toSigningEndpoint } from './webhook.ts';
import * as endpoints from './webhooks.repository.ts';

export interface ClaimDeps {
  db: Db;
  successes: SuccessLog;
  leaseMs: number;
  /** With tracing on, the kept trace context of each event (an attempt joins its writer's trace). */
  tracesOf: (eventIds: readonly string[]) => Promise<Map<string, TraceContext> | undefined>;
}

/**
 * The claim stage: due deliveries that are the head of their line, for `room.holder` within its room
 * (deliveries.repository.ts, `claimDueDeliveries`), each with the endpoint it goes to. The successes
 * answered since the last background transaction are recorded in the claim's (one commit for both).
 * Nothing due and nothing to record: no transaction at all.
 */
export async function claimDue(deps: ClaimDeps, room: ClaimRoom): Promise<ClaimedDelivery[]> {
  const nowMs = Date.now();
  const now = new Date(nowMs).toISOString();
  if (deps.successes.size === 0 && !(await deliveries.anyDue(deps.db, now))) return [];
  const taken = deps.successes.take();
  const rows = await settling(taken, () =>
    deliveries.claimDueDeliveries(
      deps.db,
      {
        holder: room.holder,
        now,
        leaseUntil: new Date(nowMs + deps.leaseMs).toISOString(),
        limit: room.limit,
        room: room.room,
        perEndpoint: room.perEndpoint,
      },
      (trx) => taken.recordIn(trx),
    ),
  );
  if (rows.length === 0) return [];
  const found = await endpoints.findEndpointsByIds(deps.db, [...new Set(rows.map((row) => row.endpoint_id))]);
  const byId = new Map(found.map((row) => [row.id, toSigningEndpoint(row, now)]));
  const traces = await deps.tracesOf(rows.map((row) => row.event_id));
  return rows.flatMap((row) => {
    const endpoint = byId.get(row.endpoint_id);
    return endpoint ? [{ row, endpoint, trace: traces?.get(row.event_id) }] : [];
  });
}
