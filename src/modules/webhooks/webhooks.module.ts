import type { EventsService } from '../events/events.service.ts';
import { createOutboxConsumer } from '../events/outbox-consumer.ts';
import { defineModule, restRoutes, type ModuleDeps } from '../module.ts';
import { scrubPayloads } from './deliveries.repository.ts';
import { createDeliveriesService, WEBHOOKS_CONSUMER } from './deliveries.service.ts';
import { createDeliverySender } from './delivery-sender.ts';
import { createDeliveryWorker } from './delivery-worker.ts';
import { parseRetrySchedule } from './retry-schedule.ts';
import { createUrlGuard } from './url-guard.ts';
import { createWebhookMetrics } from './webhook-metrics.ts';
import { webhooksMigrations } from './webhooks.migrations.ts';
import { webhooksRoutes } from './webhooks.routes.ts';
import { createWebhooksService } from './webhooks.service.ts';

/** Events per fan-out batch (one transaction: the deliveries and the consumer's move). */
const FAN_OUT_BATCH = 200;
/**
 * The commits within this long after one are fanned out in one step: a step is one transaction
 * whatever its size, so under a steady write load steps come at most this often and grow with it; and
 * a step small enough for the worker's room is claimed whole by the fan-out (no claim transactions).
 */
const FAN_OUT_WAKE_DELAY_MS = 50;

function createService({ db, config, services }: ModuleDeps<{ events: EventsService }>) {
  const guard = createUrlGuard({
    enforced: config.NODE_ENV === 'production' && !config.WEBHOOK_ALLOW_PRIVATE_URLS,
  });
  const metrics = createWebhookMetrics();
  const sender = createDeliverySender({ timeoutMs: config.WEBHOOK_TIMEOUT_MS, guard });
  // The deliveries keep the event JSON they send: an erasure (DECISIONS §19) scrubs it with the outbox's.
  services.events.onStoredCopies({ scrub: scrubPayloads });
  return {
    ...createWebhooksService(db, services.events, guard, { secretOverlapHours: config.WEBHOOK_SECRET_OVERLAP_HOURS }),
    deliveries: createDeliveriesService(db, services.events, sender, metrics, {
      schedule: parseRetrySchedule(config.WEBHOOK_RETRY_SCHEDULE),
      // A lease shorter than a request would let another instance send a delivery still in flight.
      leaseMs: Math.max(config.WEBHOOK_LEASE_MS, config.WEBHOOK_TIMEOUT_MS + 1000),
      timeoutMs: config.WEBHOOK_TIMEOUT_MS,
      fanOutBatch: FAN_OUT_BATCH,
    }),
    metrics,
  };
}
type WebhooksModuleService = ReturnType<typeof createService>;

/**
 * Webhooks: endpoints (`/webhooks`, admin), the fan-out of the outbox into deliveries (consumer
 * `webhooks`, one instance at a time) and the delivery worker of every instance (README.md).
 */
export const webhooksModule = defineModule({
  name: 'webhooks',
  createService,
  routes: restRoutes(webhooksRoutes, ({ webhooks }) => ({ webhooks })),
  migrations: webhooksMigrations,
  workers: ({ webhooks, events }: { webhooks: WebhooksModuleService; events: EventsService }, { config, log }) => {
    const delivery = createDeliveryWorker(webhooks.deliveries, {
      pollMs: config.WEBHOOK_DELIVERY_POLL_MS,
      concurrency: config.WEBHOOK_CONCURRENCY,
      perEndpoint: config.WEBHOOK_ENDPOINT_CONCURRENCY,
      log,
    });
    webhooks.onDeliveriesQueued(delivery.wake);
    // Woken by this process's event-writing commits while there are endpoints (else its poll suffices).
    let endpointsSeen = false;
    const fanOut = createOutboxConsumer(events, {
      name: 'webhook fan-out',
      consumer: WEBHOOKS_CONSUMER,
      intervalMs: config.WEBHOOK_FANOUT_POLL_MS,
      wakeDelayMs: FAN_OUT_WAKE_DELAY_MS,
      log,
      wakesOnCommit: () => endpointsSeen,
      step: async (holder) => {
        // The deliveries this process's worker has room for are claimed for it by the fan-out itself
        // and sent at once; any others are claimed by the worker (woken) or another instance.
        const done = await webhooks.deliveries.fanOut(holder, delivery.claimRoom());
        delivery.accept(done.claimed, done.left > 0);
        if (done.events > 0) endpointsSeen = done.targets > 0;
        return done.events >= FAN_OUT_BATCH;
      },
    });
    return [fanOut, delivery];
  },
  metrics: ({ webhooks }: { webhooks: WebhooksModuleService }) => [
    {
      gauges: {
        webhook_events_behind: 'Events the webhook fan-out has not taken yet (the outbox backlog of webhooks)',
        webhook_deliveries_pending: 'Webhook deliveries waiting for their first or next attempt',
      },
      read: async () => ({
        webhook_events_behind: await webhooks.deliveries.countBehind(),
        webhook_deliveries_pending: await webhooks.deliveries.countPending(),
      }),
    },
  ],
  instruments: ({ webhooks }: { webhooks: WebhooksModuleService }) => webhooks.metrics.all,
});
