import type { Db } from '../../core/db/database.ts';
import { activeTracing } from '../../core/tracing/tracing.ts';
import { backgroundTransaction, backgroundWrite } from '../events/background-writes.ts';
import type { EventsService } from '../events/events.service.ts';
import * as deliveries from './deliveries.repository.ts';
import type { AttemptResult, DeliverySender } from './delivery-sender.ts';
import { fanOutBatch, type ClaimedDelivery, type ClaimRoom, type FanOutDone } from './delivery-fan-out.ts';
import { createSuccessLog } from './delivery-successes.ts';
import { nextAttemptAt, parseRetryAfter } from './retry-schedule.ts';
import { toSigningEndpoint } from './webhook.ts';
import type { AttemptOutcomeLabel, WebhookMetrics } from './webhook-metrics.ts';
import * as endpoints from './webhooks.repository.ts';

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

const ms = (iso: string) => Date.parse(iso);

const NOTHING_MADE: FanOutDone = { made: 0, claimed: [], left: 0, targets: 0 };

/** The fan-out (events → deliveries) and the attempts (deliveries → HTTP), for the two workers. */
export function createDeliveriesService(
  db: Db,
  events: EventsService,
  sender: DeliverySender,
  metrics: WebhookMetrics,
  options: DeliveryOptions,
) {
  events.holdRetention(() => deliveries.findOldestPendingPosition(db));

  const successes = createSuccessLog((latency) => metrics.delivered(latency));

  async function record(claimed: ClaimedDelivery, holder: string, result: AttemptResult): Promise<void> {
    const { row, endpoint } = claimed;
    const nowMs = Date.now();
    const at = new Date(nowMs).toISOString();
    if (result.kind === 'answered' && result.status >= 200 && result.status < 300) {
      metrics.attempt('succeeded');
      const committed = claimed.committed ?? ms((JSON.parse(row.payload) as { timestamp: string }).timestamp);
      successes.add({ id: Number(row.id), committed, status: result.status, holder });
      return;
    }
    if (result.kind === 'answered' && result.status === 410) {
      // Gone: the endpoint is disabled; this delivery waits with the others and goes first once it is enabled again.
      metrics.attempt('gone');
      await backgroundTransaction(db, async (trx) => {
        if (
          await deliveries.recordAttempt(trx, Number(row.id), holder, {
            status: 'pending',
            at,
            responseStatus: 410,
            error: null,
            nextAttemptAt: at,
          })
        )
          await endpoints.disableEndpoint(trx, endpoint.id, at);
      });
      return;
    }
    const label: AttemptOutcomeLabel =
      result.kind === 'refused'
        ? 'refused'
        : result.kind === 'failed' && result.error.startsWith('no answer')
          ? 'timeout'
          : 'failed';
    metrics.attempt(label);
    const status = result.kind === 'answered' ? result.status : null;
    const retryAfter =
      result.kind === 'answered' && (status === 429 || status === 503)
        ? parseRetryAfter(result.retryAfter, nowMs)
        : undefined;
    const next = nextAttemptAt(options.schedule, row.attempts + 1, nowMs, retryAfter);
    const recorded = await backgroundWrite(db, (writer) =>
      deliveries.recordAttempt(writer, Number(row.id), holder, {
        status: next === undefined ? 'dead' : 'pending',
        at,
        responseStatus: status,
        error: result.kind === 'answered' ? null : result.error,
        nextAttemptAt: next === undefined ? null : new Date(next).toISOString(),
      }),
    );
    if (recorded && next === undefined) metrics.died();
  }

  return {
    /**
     * Takes the webhook consumer's next events (if this instance holds its lease) and fans them out,
     * recording the successes answered since the last background transaction in the same commit; with
     * `claim`, the deliveries it may take are inserted claimed and returned (`fanOutBatch`). `left`:
     * deliveries made and not claimed here.
     */
    async fanOut(
      holder: string,
      claim?: ClaimRoom,
    ): Promise<{ events: number; deliveries: number; claimed: ClaimedDelivery[]; left: number; targets: number }> {
      // The successes answered since the last commit are recorded in the fan-out's transaction (one commit
      // for both: delivery-successes.ts); the batch's deliveries are made there (delivery-fan-out.ts).
      const step = await successes.within((recordSuccesses) =>
        events.consume(
          { consumer: WEBHOOKS_CONSUMER, holder, limit: options.fanOutBatch, leaseMs: options.leaseMs },
          async (trx, batch) => {
            await recordSuccesses(trx);
            return fanOutBatch(trx, batch, claim, options.leaseMs);
          },
        ),
      );
      const done = step.result ?? NOTHING_MADE;
      return {
        events: step.handled,
        deliveries: done.made,
        claimed: done.claimed,
        left: done.left,
        targets: done.targets,
      };
    },

    /** Claims due deliveries for `holder` (see deliveries.repository.ts), with the endpoints they go to. */
    async claim(
      holder: string,
      limit: number,
      room: ReadonlyMap<number, number>,
      perEndpoint: number,
    ): Promise<ClaimedDelivery[]> {
      const nowMs = Date.now();
      if (successes.size === 0 && !(await deliveries.anyDue(db, new Date(nowMs).toISOString()))) return [];
      const rows = await successes.within((record) =>
        deliveries.claimDueDeliveries(
          db,
          {
            holder,
            now: new Date(nowMs).toISOString(),
            leaseUntil: new Date(nowMs + options.leaseMs).toISOString(),
            limit,
            room,
            perEndpoint,
          },
          record,
        ),
      );
      if (rows.length === 0) return [];
      const at = new Date(nowMs).toISOString();
      const byId = new Map(
        (await endpoints.findEndpointsByIds(db, [...new Set(rows.map((row) => row.endpoint_id))])).map((row) => [
          row.id,
          toSigningEndpoint(row, at),
        ]),
      );
      // With tracing on, each attempt joins its event's writer's trace: kept with the event (events are
      // kept while a delivery of theirs is pending), looked up for the claimed ones in one statement.
      const traces = activeTracing() ? await events.traceContextsOf(rows.map((row) => row.event_id)) : undefined;
      return rows.flatMap((row) => {
        const endpoint = byId.get(row.endpoint_id);
        return endpoint ? [{ row, endpoint, trace: traces?.get(row.event_id) }] : [];
      });
    },

    /** Sends one claimed delivery and records the outcome; a stop (`signal`) gives it back untried. */
    async deliver(claimed: ClaimedDelivery, holder: string, signal?: AbortSignal): Promise<void> {
      const result = await sender.send(
        {
          url: claimed.endpoint.url,
          secrets: claimed.endpoint.secrets,
          eventId: claimed.row.event_id,
          payload: claimed.row.payload,
          trace: claimed.trace,
        },
        signal,
      );
      if (signal?.aborted) {
        await backgroundWrite(db, (writer) => deliveries.releaseDeliveries(writer, [Number(claimed.row.id)], holder));
        return;
      }
      await record(claimed, holder, result);
    },

    /**
     * Whether a claimed delivery's lease still covers a whole attempt: one claimed ahead and kept waiting
     * behind its endpoint's answers is given back instead, so its lease never runs out while it is in
     * flight (another instance could send it at the same time). A lease is at least the timeout plus a
     * second, so a delivery sent right after its claim always is.
     */
    sendable: (claimed: ClaimedDelivery, nowMs = Date.now()): boolean =>
      claimed.row.claimed_until !== null && ms(claimed.row.claimed_until) - nowMs > options.timeoutMs,

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
    flushSuccesses: () => successes.within((record) => backgroundTransaction(db, record)),
    closeSender: () => sender.close(),
  };
}

export type DeliveriesService = ReturnType<typeof createDeliveriesService>;
