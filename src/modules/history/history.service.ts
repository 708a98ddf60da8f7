import type { Db } from '../../core/db/database.ts';
import { noEvents, type EventRecorder } from '../events/event-recorder.ts';
import { recordTrashEvents, type TrashEvents } from './trash.representation.ts';
import { createTrash, type TrashSettings } from './trash.ts';
import { createRevisions, type Revisions } from './revisions.ts';

/** Deletions the sweep removes per step (the step runs again at once while there are more). */
const SWEEP_BATCH = 50;

/**
 * History (DECISIONS §19): the trash's retention sweep. The resources' own services move items into
 * the trash and restore them (trash.ts), in their own transactions.
 */
export function createHistoryService(
  db: Db,
  events: EventRecorder<TrashEvents> = noEvents(),
  settings: TrashSettings = { retentionDays: 30 },
  revisions: Revisions = createRevisions(db, { keep: 100, retentionDays: 365 }),
) {
  const trash = createTrash(settings);
  return {
    /** Revisions and the audit (revisions.ts). */
    revisions,

    /** Revisions past REVISIONS_KEEP per item or REVISIONS_RETENTION_DAYS; true when there may be more. */
    sweepRevisions: (): Promise<boolean> => revisions.sweep(),

    /**
     * Removes for good the deletions past TRASH_RETENTION_DAYS, each in its own transaction with its
     * `*.purged` events; true when there may be more.
     */
    async sweepTrash(): Promise<boolean> {
      const expired = await trash.expiredDeletions(db, SWEEP_BATCH);
      for (const deletionId of expired) {
        await events.transaction(db, async (trx) => {
          const items = await trash.purgeDeletion(trx, deletionId);
          await recordTrashEvents((type, data) => events.record(trx, type, data), items, 'purged');
        });
      }
      return expired.length === SWEEP_BATCH;
    },
  };
}

export type HistoryService = ReturnType<typeof createHistoryService>;
