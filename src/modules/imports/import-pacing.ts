/**
 * How long a worker waits before an import's next chunk, so the API stays responsive while a big import
 * runs on the same cores and database (DECISIONS §18's cost: the API's latency during an import).
 *
 * The worker has no view of the API's load, but its chunks do: a chunk written while the machine is
 * otherwise idle takes its usual time, one written while requests compete for the cores and the database
 * takes longer. So each job keeps the quickest recent chunk as its usual time (allowed to creep up slowly,
 * since a growing table makes every chunk a little dearer) and, after a chunk that took more than
 * `SLOWER` times that, waits as long as the chunk was slowed (at most `MAX_WAIT_MS`): under contention
 * the import gives up about half its share, and on an idle machine it never waits.
 */

/** A chunk this much slower than the job's usual time is taken as a sign of other work competing. */
const SLOWER = 1.25;
/** The usual time may rise by this factor per chunk (a chunk's cost grows with the table it writes to). */
const CREEP = 1.005;
/** The longest wait between two chunks: an import under steady load still advances. */
export const MAX_WAIT_MS = 1000;

export interface ImportPacer {
  /** The wait (ms) before the next chunk of `jobId`, given how long its last chunk took. */
  after(jobId: number, elapsedMs: number): number;
}

export function createImportPacer(enabled: boolean): ImportPacer {
  /** The job whose chunks this worker is writing, and its usual chunk time. */
  let job: number | undefined;
  let usualMs = Infinity;
  return {
    after(jobId, elapsedMs) {
      if (jobId !== job) {
        job = jobId;
        usualMs = Infinity;
      }
      const usual = Math.min(usualMs * CREEP, elapsedMs);
      usualMs = usual;
      if (!enabled || elapsedMs <= usual * SLOWER) return 0;
      return Math.min(MAX_WAIT_MS, Math.round(elapsedMs - usual));
    },
  };
}
