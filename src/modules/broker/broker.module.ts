import type { Config } from '../../config/config.ts';
import type { EventsService } from '../events/events.service.ts';
import { defineModule, type ModuleDeps } from '../module.ts';
import { createNatsConnection } from './nats-connection.ts';
import { createNatsPublisher, createNatsPublisherWorker, NATS_CONSUMER, type NatsPublisher } from './nats-publisher.ts';

/** Long enough for a step's worst case (a batch, then one publication that runs into its timeout). */
const leaseMsFor = (config: Config) => Math.max(15_000, 3 * config.NATS_PUBLISH_TIMEOUT_MS);

/**
 * The broker: with NATS_URL set, every event of the outbox is published to NATS JetStream
 * (DECISIONS §10 "Broker"); without it, nothing (`services.broker` is undefined). No routes, no tables
 * of its own: its place in the feed is a row of `event_consumers`.
 */
export const brokerModule = defineModule({
  name: 'broker',
  createService: ({ config, services }: ModuleDeps<{ events: EventsService }>) => {
    if (!config.NATS_URL) return undefined;
    // The publisher's place exists before this process writes an event, whichever process runs the
    // publisher and whenever it starts: no event written with NATS_URL set is left before it (README.md).
    services.events.placeBeforeWrites(NATS_CONSUMER);
    const connection = createNatsConnection({
      url: config.NATS_URL,
      stream: config.NATS_STREAM,
      subjects: [`${config.NATS_SUBJECT_PREFIX}.>`],
      timeoutMs: config.NATS_PUBLISH_TIMEOUT_MS,
      name: 'content-service',
    });
    return createNatsPublisher(services.events, connection, {
      subjectPrefix: config.NATS_SUBJECT_PREFIX,
      batchSize: config.NATS_BATCH_SIZE,
      leaseMs: leaseMsFor(config),
    });
  },
  workers: ({ broker, events }: { broker: NatsPublisher | undefined; events: EventsService }, { config, log }) =>
    broker ? [createNatsPublisherWorker(events, broker, { pollMs: config.NATS_POLL_MS, log })] : [],
  metrics: ({ broker }: { broker: NatsPublisher | undefined }) =>
    broker
      ? [
          {
            gauges: { nats_publisher_backlog: 'Events in the outbox not yet published to NATS JetStream' },
            read: async () => ({ nats_publisher_backlog: await broker.backlog() }),
            counters: {
              nats_publications_total: {
                help: 'Publications to NATS JetStream by outcome (duplicate: JetStream had the Nats-Msg-Id already)',
                label: 'outcome',
                totals: () => broker.totals(),
              },
            },
          },
        ]
      : [],
});
