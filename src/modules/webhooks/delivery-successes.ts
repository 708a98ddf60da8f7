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
     * Runs `transaction`, handing it `record(writer)` to record the successes in it (again if the
     * transaction runs again); they are kept for the next one if it fails or does not call `record`,
     * and reported once it has committed.
     */
    async within<T>(transaction: (record: (writer: Db) => Promise<void>) => Promise<T>): Promise<T> {
      const taken = successes;
      successes = [];
      let latencies: number[] | undefined;
      try {
        const result = await transaction(async (writer) => {
          latencies = taken.length > 0 ? await recordIn(writer, taken) : [];
        });
        if (latencies === undefined) successes = [...taken, ...successes];
        else for (const latency of latencies) onRecorded(latency);
        return result;
      } catch (error) {
        successes = [...taken, ...successes];
        throw error;
      }
    },
  };
}
