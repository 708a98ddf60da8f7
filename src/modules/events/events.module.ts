import { createPollingWorker } from '../../core/jobs/polling-worker.ts';
import { defineModule, restRoutes } from '../module.ts';
import { eventsMigrations } from './events.migrations.ts';
import { eventsRoutes } from './events.routes.ts';
import { createEventsService, type EventsService } from './events.service.ts';

/**
 * Events: the transactional outbox every other service records its changes in (`services.events`,
 * listed first so every module can use it), and the feed `GET /events`, `GET /events/stream`.
 */
export const eventsModule = defineModule({
  name: 'events',
  createService: ({ db, config }) =>
    createEventsService(db, {
      retentionHours: config.EVENT_RETENTION_HOURS,
      pollMs: config.EVENT_STREAM_POLL_MS,
      heartbeatMs: config.EVENT_STREAM_HEARTBEAT_MS,
    }),
  routes: restRoutes(eventsRoutes, ({ events }) => ({ events })),
  migrations: eventsMigrations,
  // Every instance purges; a delete of what is already gone deletes nothing.
  workers: ({ events }: { events: EventsService }, { config, log }) => [
    createPollingWorker({
      name: 'event purge',
      intervalMs: config.EVENT_PURGE_INTERVAL_MS,
      log,
      step: async () => {
        await events.purgeExpired();
        return false;
      },
    }),
  ],
  metrics: ({ events }: { events: EventsService }) => [
    {
      gauges: { events_kept: 'Events in the outbox (kept for the feed until EVENT_RETENTION_HOURS)' },
      read: async () => ({ events_kept: await events.countEvents() }),
    },
  ],
});
