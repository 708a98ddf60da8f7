import { createPollingWorker } from '../../core/jobs/polling-worker.ts';
import type { EventsService } from '../events/events.service.ts';
import type { EventPayloadsOf } from '../events/event-payloads.ts';
import { defineModule, type ModuleDeps } from '../module.ts';
import { historyMigrations } from './history.migrations.ts';
import { createHistoryService, type HistoryService } from './history.service.ts';
import { TRASH_EVENT_PAYLOADS, TRASH_EVENT_VIEWS, type TrashEvents } from './trash.representation.ts';

/** History: the trash's table and its retention sweep, and the trash events' payloads (DECISIONS §19). */
export const historyModule = defineModule({
  name: 'history',
  createService: ({ db, config, services }: ModuleDeps<{ events: EventsService }>) =>
    createHistoryService(db, services.events.recorderFor<TrashEvents>(TRASH_EVENT_VIEWS), {
      retentionDays: config.TRASH_RETENTION_DAYS,
    }),
  migrations: historyMigrations,
  // Every instance sweeps; a deletion already removed by another is simply not found again.
  workers: ({ history }: { history: HistoryService }, { config, log }) => [
    createPollingWorker({
      name: 'trash sweep',
      intervalMs: config.TRASH_SWEEP_INTERVAL_MS,
      log,
      step: () => history.sweepTrash(),
    }),
  ],
  eventPayloads: TRASH_EVENT_PAYLOADS satisfies EventPayloadsOf<TrashEvents>,
});
