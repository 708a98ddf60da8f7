import type { FastifyBaseLogger } from 'fastify';
import type { PollingWorker } from '../../core/jobs/polling-worker.ts';
import { activeTracing } from '../../core/tracing/tracing.ts';
import type { FeedEvent } from '../events/event.ts';
import type { EventsService } from '../events/events.service.ts';
import { createOutboxConsumer } from '../events/outbox-consumer.ts';
import type { NatsBrokerConnection } from './nats-connection.ts';

/** The publisher's name in `event_consumers`: its place in the feed, shared by every instance. */
export const NATS_CONSUMER = 'nats-publisher';

export type PublicationOutcome = 'published' | 'duplicate' | 'failed';

export interface NatsPublisherOptions {
  /** NATS_SUBJECT_PREFIX: an event goes to `<prefix>.<type>`. */
  subjectPrefix: string;
  /** NATS_BATCH_SIZE. */
  batchSize: number;
  /** How long an instance keeps the publisher's lease without renewing it (each step renews it). */
  leaseMs: number;
}

/**
 * Publishes the outbox to JetStream: the next batch from the publisher's place in the feed, each event
 * on `<prefix>.<type>` with `Nats-Msg-Id` = its id, then the place moves past the batch once every ack
 * is in. A batch is sent at once and its acks checked in order (nats-connection.ts says why the stream
 * keeps feed order so): awaiting each ack before sending the next costs an event-loop turn per event,
 * which under load falls behind the write rate.
 */
export function createNatsPublisher(
  events: EventsService,
  connection: NatsBrokerConnection,
  options: NatsPublisherOptions,
) {
  const totals: Record<PublicationOutcome, number> = { published: 0, duplicate: 0, failed: 0 };

  async function send(batch: FeedEvent[]): Promise<void> {
    const tracing = activeTracing();
    // With tracing on, a producer span per message in the trace of the request that wrote the event
    // (DECISIONS §17), its `traceparent` in the message's headers; each ends when its ack settles.
    const spans = tracing
      ? batch.map(({ event, trace }) =>
          tracing.startMessageSpan(
            'nats',
            `${options.subjectPrefix}.${event.type}`,
            { 'messaging.message.id': event.id },
            trace,
          ),
        )
      : undefined;
    const messages = batch.map(({ event, json }, i) => ({
      subject: `${options.subjectPrefix}.${event.type}`,
      payload: json,
      msgId: event.id,
      headers: spans?.[i]!.headers,
    }));
    const acks = await connection.publishInOrder(messages).catch((error: unknown) => {
      totals.failed += 1; // not sent at all (no connection): the batch's first event failed
      for (const span of spans ?? []) span.end('unavailable');
      throw error;
    });
    if (spans)
      acks.forEach((ack, i) =>
        ack.then(
          () => spans[i]!.end(),
          (error: unknown) => spans[i]!.end(errorType(error)),
        ),
      );
    for (const ack of acks) {
      try {
        totals[(await ack).duplicate ? 'duplicate' : 'published'] += 1;
      } catch (error) {
        totals.failed += 1;
        // The rest settle (none left unhandled); the batch goes again, its stored part as duplicates.
        await Promise.allSettled(acks);
        throw error;
      }
    }
  }

  return {
    /**
     * One step for `holder` (a worker's id): publishes the next batch if this instance holds the lease,
     * and moves past it once every ack is in. True when the batch was full (more may wait). Throws when
     * a publication fails: the place stays, and the same events go again at the next step.
     */
    async publishNext(holder: string): Promise<boolean> {
      const count = await events.relay(
        { consumer: NATS_CONSUMER, holder, limit: options.batchSize, leaseMs: options.leaseMs },
        send,
      );
      return count === options.batchSize;
    },

    /** Events not published yet (for `/metrics`). */
    backlog: () => events.countBehind(NATS_CONSUMER),

    /** Publications since start, by outcome (for `/metrics`). */
    totals: (): Record<string, number> => ({ ...totals }),

    close: () => connection.close(),
  };
}

export type NatsPublisher = ReturnType<typeof createNatsPublisher>;

/** A failed publication's `error.type`: the client's error class (a timeout, no responders), never its message. */
function errorType(error: unknown): string {
  const name = (error as { name?: unknown } | undefined)?.name;
  return typeof name === 'string' ? name : '_OTHER';
}

/**
 * The commits within this long after one are published in one step: a step costs three statements
 * (where the publisher is, the feed's read, the move) whatever its size, so under a steady write load
 * the steps come at most this often and grow with the load, at the price of this much latency.
 */
const WAKE_DELAY_MS = 50;

/**
 * The publisher's background loop, an outbox consumer (events/outbox-consumer.ts): every `pollMs`, and
 * right after each commit of this process that wrote an event (so the publication follows within
 * milliseconds, not a poll interval). While NATS is away it logs once, is not woken by commits and
 * polls; the events wait in the outbox. Its stop releases the lease and drains the connection.
 */
export function createNatsPublisherWorker(
  events: EventsService,
  publisher: NatsPublisher,
  context: { pollMs: number; log: FastifyBaseLogger },
): PollingWorker {
  const { log } = context;
  let failing = false;
  return createOutboxConsumer(events, {
    name: 'NATS publisher',
    consumer: NATS_CONSUMER,
    intervalMs: context.pollMs,
    wakeDelayMs: WAKE_DELAY_MS,
    log,
    wakesOnCommit: () => !failing,
    async step(holder) {
      try {
        const more = await publisher.publishNext(holder);
        if (failing) log.info('NATS publisher: publishing again');
        failing = false;
        return more;
      } catch (error) {
        // One line per outage, not one per poll; the failures are counted in /metrics.
        if (!failing) log.warn({ err: error }, 'NATS publisher: publication failed; events wait in the outbox');
        failing = true;
        return false;
      }
    },
    stopped: () => publisher.close(),
  });
}
