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

export interface LanePacer {
  /**
   * A chunk of lane `lane` begins (at `at`, ms); the function returned, called as it ends, gives the wait
   * before that lane's next chunk.
   */
  begin(lane: number, jobId: number, at?: number): (at?: number) => number;
}

/**
 * The pacing of a job's lanes (IMPORT_LANES), one pacer per lane: a lane waits after its own chunk slowed
 * by other work while the other lanes go on. Lanes slow each other down, so only a chunk written with every
 * lane busy at both its ends counts (and may cause a wait): the last chunk of a step, or the first, written
 * alone and quicker, would otherwise set a usual time the chunks written side by side always exceed, and
 * the lanes would wait on an idle machine.
 */
export function createLanePacer(lanes: number, enabled: boolean): LanePacer {
  const pacers = Array.from({ length: lanes }, () => createImportPacer(enabled));
  let writing = 0;
  return {
    begin(lane, jobId, startedAt = performance.now()) {
      writing += 1;
      const full = writing === lanes;
      return (endedAt = performance.now()) => {
        const alongside = full && writing === lanes;
        writing -= 1;
        return alongside ? pacers[lane]!.after(jobId, endedAt - startedAt) : 0;
      };
    },
  };
}
