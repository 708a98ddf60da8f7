import { createPollingWorker } from '../../core/jobs/polling-worker.ts';
import type { EventsService } from '../events/events.service.ts';
import type { EventPayloadsOf } from '../events/event-payloads.ts';
import { defineModule, restRoutes, type ModuleDeps } from '../module.ts';
import { historyMigrations } from './history.migrations.ts';
import { createHistoryService, type HistoryService } from './history.service.ts';
import { revisionsRoutes } from './revisions.routes.ts';
import { createRevisions } from './revisions.ts';
import { TRASH_EVENT_PAYLOADS, TRASH_EVENT_VIEWS, type TrashEvents } from './trash.representation.ts';

/**
 * History: the trash's table and its retention sweep, the trash events' payloads, and revisions with
 * the audit (DECISIONS §19). Revisions are written by the events service with every item's event, in
 * its transaction (`onChange`): the one place every write path passes.
 */
export const historyModule = defineModule({
  name: 'history',
  createService: ({ db, config, services }: ModuleDeps<{ events: EventsService }>) => {
    const revisions = createRevisions(db, {
      keep: config.REVISIONS_KEEP,
      retentionDays: config.REVISIONS_RETENTION_DAYS,
    });
    services.events.onChange(revisions.changeWriter);
    return createHistoryService(
      db,
      services.events.recorderFor<TrashEvents>(TRASH_EVENT_VIEWS),
      { retentionDays: config.TRASH_RETENTION_DAYS },
      revisions,
    );
  },
  routes: restRoutes(revisionsRoutes, ({ history }) => ({ history })),
  migrations: historyMigrations,
  // Every instance sweeps; a deletion already removed by another is simply not found again.
  workers: ({ history }: { history: HistoryService }, { config, log }) => [
    createPollingWorker({
      name: 'trash sweep',
      intervalMs: config.TRASH_SWEEP_INTERVAL_MS,
      log,
      step: () => history.sweepTrash(),
    }),
    createPollingWorker({
      name: 'revisions sweep',
      intervalMs: config.TRASH_SWEEP_INTERVAL_MS,
      log,
      step: () => history.sweepRevisions(),
    }),
  ],
  eventPayloads: TRASH_EVENT_PAYLOADS satisfies EventPayloadsOf<TrashEvents>,
});
