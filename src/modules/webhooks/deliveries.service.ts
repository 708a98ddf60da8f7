import type { Db } from '../../core/db/database.ts';
import type { FeedEvent } from '../events/event.ts';
import type { EventsService } from '../events/events.service.ts';
import * as deliveries from './deliveries.repository.ts';
import type { AttemptResult, DeliverySender } from './delivery-sender.ts';
import { nextAttemptAt, parseRetryAfter } from './retry-schedule.ts';
import { subscribedAt, toSigningEndpoint, type SigningEndpoint } from './webhook.ts';
import type { AttemptOutcomeLabel, WebhookMetrics } from './webhook-metrics.ts';
import * as endpoints from './webhooks.repository.ts';
import type { NewWebhookDeliveryRow, WebhookDeliveryRow } from './webhooks.table.ts';

/** The outbox consumer that fans events out to endpoints (its name in `event_consumers`). */
export const WEBHOOKS_CONSUMER = 'webhooks';
/** Rows per insert statement (SQLite allows 32766 bound values). */
const INSERT_CHUNK = 500;

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

/** A claimed delivery with the endpoint it goes to. */
export interface ClaimedDelivery {
  row: WebhookDeliveryRow;
  endpoint: SigningEndpoint;
}

const ms = (iso: string) => Date.parse(iso);

export function toDeliveryRow(endpointId: number, item: FeedEvent, at: string): NewWebhookDeliveryRow {
  return {
    endpoint_id: endpointId,
    event_tx: item.position.tx,
    event_seq: item.position.seq,
    event_id: item.event.id,
    event_type: item.event.type,
    resource: item.resource,
    payload: JSON.stringify(item.event),
    status: 'pending',
    attempts: 0,
    last_attempt_at: null,
    last_response_status: null,
    last_error: null,
    next_attempt_at: at,
    claimed_by: null,
    claimed_until: null,
    created_at: at,
  };
}

/** The fan-out (events → deliveries) and the attempts (deliveries → HTTP), for the two workers. */
export function createDeliveriesService(
  db: Db,
  events: EventsService,
  sender: DeliverySender,
  metrics: WebhookMetrics,
  options: DeliveryOptions,
) {
  events.holdRetention(() => deliveries.findOldestPendingPosition(db));

  /** One delivery per (event, endpoint it is for), in the consume handler's transaction: they commit with the consumer's move. */
  async function fanOutBatch(trx: Db, batch: FeedEvent[]): Promise<number> {
    const oldest = batch.reduce(
      (min, item) => (item.event.timestamp < min ? item.event.timestamp : min),
      batch[0]!.event.timestamp,
    );
    const targets = (await endpoints.findFanOutEndpoints(trx, oldest)).map((row) => ({
      id: row.id,
      receives: subscribedAt(row),
    }));
    const at = new Date().toISOString();
    const rows = batch.flatMap((item) => {
      const committed = ms(item.event.timestamp);
      return targets
        .filter((target) => target.receives(item.event.type, committed))
        .map((target) => toDeliveryRow(target.id, item, at));
    });
    for (let i = 0; i < rows.length; i += INSERT_CHUNK)
      await deliveries.insertDeliveries(trx, rows.slice(i, i + INSERT_CHUNK));
    return rows.length;
  }

  /**
   * Successes answered since the last claim, recorded by the next claim's transaction (one update per
   * response status, then the claim: one commit for both), or at stop. Under load a delivery then costs
   * a share of one commit, not a commit of its own (each a synchronous one on SQLite). A success not yet
   * recorded when the process dies is sent again after the lease: at least once, as for any crash.
   */
  let successes: Array<{ id: number; committed: number; status: number; holder: string }> = [];

  async function recordSuccesses(writer: Db, taken: typeof successes): Promise<void> {
    const at = Date.now();
    const groups = new Map<string, typeof successes>();
    for (const entry of taken) {
      const key = `${entry.status} ${entry.holder}`;
      const group = groups.get(key);
      if (group) group.push(entry);
      else groups.set(key, [entry]);
    }
    for (const entries of groups.values()) {
      const { status, holder } = entries[0]!;
      const recorded = new Set(
        await deliveries.recordSucceeded(
          writer,
          entries.map((entry) => entry.id),
          holder,
          { at: new Date(at).toISOString(), responseStatus: status },
        ),
      );
      for (const entry of entries)
        if (recorded.has(entry.id)) metrics.delivered(Math.max(0, at - entry.committed) / 1000);
    }
  }

  /** Hands the successes to `write`; they are kept for the next one if it fails. */
  async function withSuccesses(write: (taken: typeof successes) => Promise<void>): Promise<void> {
    const taken = successes;
    successes = [];
    try {
      await write(taken);
    } catch (error) {
      successes = [...taken, ...successes];
      throw error;
    }
  }

  async function record(claimed: ClaimedDelivery, holder: string, result: AttemptResult): Promise<void> {
    const { row, endpoint } = claimed;
    const nowMs = Date.now();
    const at = new Date(nowMs).toISOString();
    if (result.kind === 'answered' && result.status >= 200 && result.status < 300) {
      metrics.attempt('succeeded');
      const committed = ms((JSON.parse(row.payload) as { timestamp: string }).timestamp);
      successes.push({ id: Number(row.id), committed, status: result.status, holder });
      return;
    }
    if (result.kind === 'answered' && result.status === 410) {
      // Gone: the endpoint is disabled; this delivery waits with the others and goes first once it is enabled again.
      metrics.attempt('gone');
      await db.transaction().execute(async (trx) => {
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
    const recorded = await deliveries.recordAttempt(db, Number(row.id), holder, {
      status: next === undefined ? 'dead' : 'pending',
      at,
      responseStatus: status,
      error: result.kind === 'answered' ? null : result.error,
      nextAttemptAt: next === undefined ? null : new Date(next).toISOString(),
    });
    if (recorded && next === undefined) metrics.died();
  }

  return {
    /** Takes the webhook consumer's next events (if this instance holds its lease) and fans them out; the deliveries made. */
    async fanOut(holder: string): Promise<{ events: number; deliveries: number }> {
      let made = 0;
      const taken = await events.consume(
        { consumer: WEBHOOKS_CONSUMER, holder, limit: options.fanOutBatch, leaseMs: options.leaseMs },
        async (trx, batch) => {
          made = await fanOutBatch(trx, batch);
        },
      );
      return { events: taken, deliveries: made };
    },

    releaseFanOut: (holder: string) => events.releaseConsumer(WEBHOOKS_CONSUMER, holder),

    /** Claims due deliveries for `holder` (see deliveries.repository.ts), with the endpoints they go to. */
    async claim(
      holder: string,
      limit: number,
      room: ReadonlyMap<number, number>,
      perEndpoint: number,
    ): Promise<ClaimedDelivery[]> {
      const nowMs = Date.now();
      if (successes.length === 0 && !(await deliveries.anyDue(db, new Date(nowMs).toISOString()))) return [];
      let rows: WebhookDeliveryRow[] = [];
      await withSuccesses(async (taken) => {
        rows = await deliveries.claimDueDeliveries(
          db,
          {
            holder,
            now: new Date(nowMs).toISOString(),
            leaseUntil: new Date(nowMs + options.leaseMs).toISOString(),
            limit,
            room,
            perEndpoint,
          },
          (trx) => recordSuccesses(trx, taken),
        );
      });
      if (rows.length === 0) return [];
      const at = new Date(nowMs).toISOString();
      const byId = new Map(
        (await endpoints.findEndpointsByIds(db, [...new Set(rows.map((row) => row.endpoint_id))])).map((row) => [
          row.id,
          toSigningEndpoint(row, at),
        ]),
      );
      return rows.flatMap((row) => {
        const endpoint = byId.get(row.endpoint_id);
        return endpoint ? [{ row, endpoint }] : [];
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
        },
        signal,
      );
      if (signal?.aborted) {
        await deliveries.releaseDeliveries(db, [Number(claimed.row.id)], holder);
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
      deliveries.releaseDeliveries(
        db,
        claimed.map((item) => Number(item.row.id)),
        holder,
      ),

    countPending: () => deliveries.countPending(db),
    countBehind: () => events.countBehind(WEBHOOKS_CONSUMER),
    /** Records the successes no claim has recorded yet (at stop). */
    flushSuccesses: () => withSuccesses((taken) => recordSuccesses(db, taken)),
    closeSender: () => sender.close(),
  };
}

export type DeliveriesService = ReturnType<typeof createDeliveriesService>;
