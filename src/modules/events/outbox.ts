import { dialectOf, type Db } from '../../core/db/database.ts';
import { afterOuterCommit } from '../../core/db/outer-transaction.ts';
import { inTransaction } from '../../core/db/transaction.ts';
import { takeWriterKey } from './feed-horizon.ts';

/**
 * The outbox seam: the transactions services record their events in, and the signal that wakes the
 * outbox's consumers (the webhook fan-out, the NATS publisher, the subscription hub) once such a
 * transaction has committed.
 *
 * The signal is told, not guessed: a transaction opened here knows whether an event was recorded in
 * it, and the signal fires after its commit resolved, only if one was. A rollback, a transaction that
 * recorded none, and the consumers' own background writes (which never go through here) fire nothing.
 * An event can only be recorded in a transaction opened here (`recordIn` throws otherwise), so a write
 * that forgot to open one fails at once instead of committing an event no consumer is woken for (and,
 * on PostgreSQL, without the writer key the feed's horizon counts on: feed-horizon.ts).
 */
export interface Outbox {
  /**
   * Runs `work` in a transaction events may be recorded in (retried as `inTransaction` is, on a
   * deadlock or a serialization conflict: `work` must touch the database only through `trx`). On
   * PostgreSQL its first statement takes the writer key (feed-horizon.ts). Signals after the commit
   * when `work` recorded an event.
   */
  transaction<T>(db: Db, work: (trx: Db) => Promise<T>): Promise<T>;
  /** Notes that an event is being recorded in `trx`; throws when `trx` is not a transaction of `transaction`. */
  recordIn(trx: Db): void;
  /** Signals a write that committed its event on its own (one statement, not in a transaction of here). */
  committed(): void;
  /** Calls `listener` after each commit that wrote an event (of this process); returns the unsubscribe. */
  afterCommit(listener: () => void): () => void;
}

export function createOutbox(options: { writerKey: boolean } = { writerKey: true }): Outbox {
  const listeners = new Set<() => void>();
  /** The transactions open now, and whether an event was recorded in each. */
  const open = new WeakMap<Db, { recorded: boolean }>();

  // Inside an outer transaction (a batch: core/db/outer-transaction.ts) the work committed only a
  // savepoint: the consumers are woken once the outer one commits.
  function committed(): void {
    afterOuterCommit(() => {
      for (const listener of listeners) listener();
    });
  }

  return {
    async transaction(db, work) {
      let recorded = false;
      const result = await inTransaction(db, async (trx) => {
        // Each attempt starts afresh: one that rolled back recorded nothing.
        recorded = false;
        if (options.writerKey && dialectOf(trx) === 'postgres') await takeWriterKey(trx);
        const state = { recorded: false };
        open.set(trx, state);
        try {
          const value = await work(trx);
          recorded = state.recorded;
          return value;
        } finally {
          open.delete(trx);
        }
      });
      if (recorded) committed();
      return result;
    },
    recordIn(trx) {
      const state = open.get(trx);
      if (!state)
        throw new Error('an event is recorded only in a transaction of the outbox (events.transaction), none was open');
      state.recorded = true;
    },
    committed,
    afterCommit(listener) {
      const own = () => listener();
      listeners.add(own);
      return () => listeners.delete(own);
    },
  };
}
