import type { Db } from '../../core/db/database.ts';
import * as deliveries from './deliveries.repository.ts';

/** A delivery answered with a 2xx, not yet recorded. */
export interface Success {
  id: number;
  /** When its event committed (ms), for the latency histogram. */
  committed: number;
  status: number;
  holder: string;
}

/**
 * Successes answered since the last background transaction, recorded by the next one (the fan-out's,
 * or a claim's: one update per response status, one commit for them and the rest), or at stop. Under
 * load a delivery's success then costs a share of one commit, not a commit of its own. A success not
 * yet recorded when the process dies is sent again after the lease: at least once, as for any crash.
 */
export function createSuccessLog(onRecorded: (latencySeconds: number) => void) {
  let successes: Success[] = [];

  /** Records `taken` in `writer`; returns the latencies to report once that has committed. */
  async function recordIn(writer: Db, taken: Success[]): Promise<number[]> {
    const at = Date.now();
    const groups = new Map<string, Success[]>();
    for (const entry of taken) {
      const key = `${entry.status} ${entry.holder}`;
      const group = groups.get(key);
      if (group) group.push(entry);
      else groups.set(key, [entry]);
    }
    const latencies: number[] = [];
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
      for (const entry of entries) if (recorded.has(entry.id)) latencies.push(Math.max(0, at - entry.committed) / 1000);
    }
    return latencies;
  }

  return {
    add(success: Success): void {
      successes.push(success);
    },
    get size(): number {
      return successes.length;
    },
    /**
     * Takes the successes logged so far, to be recorded by one transaction: `recordIn(writer)` inside it
     * (again if the transaction runs again), then `settle(committed)` after it. Committed and recorded,
     * their latencies are reported; otherwise (the transaction failed, or never called `recordIn`) they
     * go back to the log for the next one.
     */
    take(): TakenSuccesses {
      const taken = successes;
      successes = [];
      let latencies: number[] | undefined;
      return {
        async recordIn(writer) {
          latencies = taken.length > 0 ? await recordIn(writer, taken) : [];
        },
        settle(committed) {
          if (committed && latencies !== undefined) for (const latency of latencies) onRecorded(latency);
          else if (taken.length > 0) successes = [...taken, ...successes];
        },
      };
    },
  };
}

/** Successes taken from the log for one transaction (`SuccessLog.take`). */
export interface TakenSuccesses {
  recordIn(writer: Db): Promise<void>;
  settle(committed: boolean): void;
}

export type SuccessLog = ReturnType<typeof createSuccessLog>;

/** Runs `transaction` with `taken` recorded in it when it calls `recordIn`; settles them by how it ended. */
export async function settling<T>(taken: TakenSuccesses, transaction: () => Promise<T>): Promise<T> {
  try {
    const result = await transaction();
    taken.settle(true);
    return result;
  } catch (error) {
    taken.settle(false);
    throw error;
  }
}
