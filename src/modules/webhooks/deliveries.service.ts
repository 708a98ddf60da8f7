import { sql, type SqlBool } from 'kysely';
import type { Db } from '../../core/db/database.ts';
import { backgroundTransaction, backgroundWrite } from '../events/background-writes.ts';
import type { EventsService } from '../events/events.service.ts';
import * as deliveries from './deliveries.repository.ts';
import { claimDue } from './delivery-claim.ts';
import { fanOutBatch, type ClaimedDelivery, type ClaimRoom } from './delivery-fan-out.ts';
import { recordOutcome } from './delivery-record.ts';
import type { DeliverySender } from './delivery-sender.ts';
import { createSuccessLog, settling } from './delivery-successes.ts';
import type { WebhookMetrics } from './webhook-metrics.ts';

/** No endpoint at all, checked in the statement that moves the fan-out past the events unread. */
const NO_ENDPOINT = sql<SqlBool>`not exists (select 1 from "webhook_endpoints")`;

/** The outbox consumer that fans events out to endpoints (its name in `event_consumers`). */
export const WEBHOOKS_CONSUMER = 'webhooks';

export interface DeliveryOptions {
  /** WEBHOOK_RETRY_SCHEDULE, parsed: the waits before each retry. */
  schedule: readonly number[];
  /** How long a claimed delivery (and the consumer) is held. */
  leaseMs: number;
  /** WEBHOOK_TIMEOUT_MS: how long an attempt may take. */
  timeoutMs: number;
  /** Events per fan-out batch. */
  fanOutBatch: number;
}

export type { ClaimedDelivery, ClaimRoom } from './delivery-fan-out.ts';
export { toDeliveryRow } from './delivery-fan-out.ts';

/**
 * The delivery pipeline for the two workers, one stage a call: fan-out (events → deliveries, some claimed
 * at once for this process's worker: delivery-fan-out.ts), claim (delivery-claim.ts), send
 * (delivery-sender.ts) and record (delivery-record.ts). Pacing (what to claim, when to send) is the
 * worker's (delivery-pacing.ts).
 */
export function createDeliveriesService(
  db: Db,
  events: EventsService,
  sender: DeliverySender,
  metrics: WebhookMetrics,
  options: DeliveryOptions,
) {
  events.holdRetention(() => deliveries.findOldestPendingPosition(db));

  const successes = createSuccessLog((latency) => metrics.delivered(latency));
  const recordDeps = { db, metrics, successes, schedule: options.schedule };
  const claimDeps = { db, successes, metrics, leaseMs: options.leaseMs };

  /**
   * Whether the last fan-out found no endpoint: then the next one first tries to move the consumer past
   * every event unread (`skipAhead`, in one statement with the check that no endpoint exists), so a
   * service without webhooks does not read each event's payload once more.
   */
  let noEndpoints = true;

  return {
    /**
     * The fan-out stage: the webhook consumer's next events (if this instance holds its lease), their
     * deliveries made and the consumer moved past them in one transaction, which also records the
     * successes answered since the last one. With `claim`, the deliveries it may take are inserted
     * claimed and returned (`fanOutBatch`); `left`: deliveries made and not claimed here.
     */
    async fanOut(
      holder: string,
      claim?: ClaimRoom,
    ): Promise<{ events: number; deliveries: number; claimed: ClaimedDelivery[]; left: number; targets: number }> {
      const consume = { consumer: WEBHOOKS_CONSUMER, holder, limit: options.fanOutBatch, leaseMs: options.leaseMs };
      if (noEndpoints && successes.size === 0 && (await events.skipAhead(consume, NO_ENDPOINT)))
        return { events: 0, deliveries: 0, claimed: [], left: 0, targets: 0 };
      const batch = await events.nextBatch(consume);
      if (batch.length === 0) return { events: 0, deliveries: 0, claimed: [], left: 0, targets: 0 };
      const taken = successes.take();
      const done = await settling(taken, () =>
        backgroundTransaction(db, async (trx) => {
          await taken.recordIn(trx);
          const made = await fanOutBatch(trx, batch, claim, options.leaseMs);
          await events.advance(trx, consume, batch);
          return made;
        }),
      );
      noEndpoints = done.targets === 0;
      return {
        events: batch.length,
        deliveries: done.made,
        claimed: done.claimed,
        left: done.left,
        targets: done.targets,
      };
    },

    /** The claim stage: due deliveries for `room.holder`, with the endpoints they go to. */
    claim: (room: ClaimRoom): Promise<ClaimedDelivery[]> => claimDue(claimDeps, room),

    /** The send and record stages for one claimed delivery; a stop (`signal`) gives it back untried. */
    async deliver(claimed: ClaimedDelivery, holder: string, signal?: AbortSignal): Promise<void> {
      const result = await sender.send(
        {
          url: claimed.endpoint.url,
          secrets: claimed.endpoint.secrets,
          eventId: claimed.row.event_id,
          payload: claimed.payload,
          trace: claimed.trace,
        },
        signal,
      );
      if (signal?.aborted) {
        await backgroundWrite(db, (writer) => deliveries.releaseDeliveries(writer, [Number(claimed.row.id)], holder));
        return;
      }
      await recordOutcome(recordDeps, claimed, holder, result);
    },

    /**
     * Whether a claimed delivery's lease still covers a whole attempt: one claimed ahead and kept waiting
     * behind its endpoint's answers is given back instead, so its lease never runs out while it is in
     * flight (another instance could send it at the same time). A lease is at least the timeout plus a
     * second, so a delivery sent right after its claim always is.
     */
    sendable: (claimed: ClaimedDelivery, nowMs = Date.now()): boolean =>
      claimed.row.claimed_until !== null && Date.parse(claimed.row.claimed_until) - nowMs > options.timeoutMs,

    /** Gives claimed deliveries back unsent (see `sendable`, and at stop). */
    giveBack: (claimed: ClaimedDelivery[], holder: string) =>
      backgroundWrite(db, (writer) =>
        deliveries.releaseDeliveries(
          writer,
          claimed.map((item) => Number(item.row.id)),
          holder,
        ),
      ),

    countPending: () => deliveries.countPending(db),
    countBehind: () => events.countBehind(WEBHOOKS_CONSUMER),
    /** Records the successes no claim has recorded yet (at stop). */
    async flushSuccesses(): Promise<void> {
      const taken = successes.take();
      await settling(taken, () => backgroundTransaction(db, (trx) => taken.recordIn(trx)));
    },
    closeSender: () => sender.close(),
  };
}

export type DeliveriesService = ReturnType<typeof createDeliveriesService>;
