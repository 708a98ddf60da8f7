import type { Db } from '../../core/db/database.ts';
import { activeTracing } from '../../core/tracing/tracing.ts';
import { backgroundWrite } from '../events/background-writes.ts';
import { toFeedEvent } from '../events/event.ts';
import * as deliveries from './delivery-claims.repository.ts';
import type { ClaimedDelivery, ClaimRoom } from './delivery-fan-out.ts';
import { settling, type SuccessLog } from './delivery-successes.ts';
import { toSigningEndpoint } from './webhook.ts';
import type { WebhookMetrics } from './webhook-metrics.ts';
import * as endpoints from './webhooks.repository.ts';

export interface ClaimDeps {
  db: Db;
  successes: SuccessLog;
  metrics: WebhookMetrics;
  leaseMs: number;
}

/**
 * The claim stage: due deliveries that are the head of their line, for `room.holder` within its room
 * (delivery-claims.repository.ts, `claimDueDeliveries`), each with the endpoint it goes to and the event JSON
 * to send: the copy a dead delivery keeps, else its event as the outbox keeps it (read by the claim's own
 * statement). With tracing on, each attempt joins its event's writer's trace, kept with the event. The
 * successes answered since the last background transaction are recorded in the claim's (one commit for
 * both). Nothing due and nothing to record: no transaction at all.
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
  const found = await endpoints.findEndpointsByIds(deps.db, [...new Set(rows.map(({ row }) => row.endpoint_id))]);
  const byId = new Map(found.map((row) => [row.id, toSigningEndpoint(row, now)]));
  const tracing = activeTracing() !== undefined;
  const unsendable: number[] = [];
  const claimed = rows.flatMap(({ row, event }): ClaimedDelivery[] => {
    const endpoint = byId.get(row.endpoint_id);
    if (!endpoint) return [];
    // A dead delivery's copy is sent as it is; the event is put together only when needed (no copy, or a trace).
    const kept = event && (row.payload === null || tracing) ? toFeedEvent(event) : undefined;
    const payload = row.payload ?? kept?.json;
    if (payload === undefined) {
      unsendable.push(Number(row.id));
      return [];
    }
    return [{ row, endpoint, payload, trace: tracing ? kept?.trace : undefined }];
  });
  if (unsendable.length > 0) {
    const dead = await backgroundWrite(deps.db, (writer) =>
      deliveries.recordUnsendable(writer, unsendable, room.holder, now),
    );
    for (let i = 0; i < dead; i += 1) deps.metrics.died();
  }
  return claimed;
}
