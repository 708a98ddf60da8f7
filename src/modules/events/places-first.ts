import { now } from '../../core/clock.ts';
import type { Db } from '../../core/db/database.ts';
import * as repo from './events.repository.ts';

/**
 * Consumers whose place in the feed must exist before this process writes its first event: the NATS
 * publisher, whose worker may run in another process, or not yet (DECISIONS §16). A consumer registers
 * its place itself at its first step; an API process that wrote before any worker ran would otherwise
 * write events before that place, never to be published. Each is registered at the feed's head (unless
 * it has a place already) once, before the first write; after that, a write checks one flag.
 */
export function createPlacesFirst(db: Db) {
  const consumers = new Set<string>();
  let placing: Promise<void> | undefined;
  let placed = true;

  async function register(): Promise<void> {
    for (const consumer of consumers) await repo.registerConsumer(db, consumer, now());
  }

  return {
    add(consumer: string): void {
      consumers.add(consumer);
      placed = false;
      placing = undefined;
    },
    /** Runs `write` once every consumer's place is registered. */
    before<T>(write: () => Promise<T>): Promise<T> {
      if (placed) return write();
      placing ??= register().then(
        () => {
          placed = true;
        },
        (error: unknown) => {
          placing = undefined; // the next write tries again
          throw error;
        },
      );
      return placing.then(write);
    },
  };
}
