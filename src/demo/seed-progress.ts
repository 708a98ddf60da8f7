import { MultiBar, SingleBar, type Options } from 'cli-progress';

/** Progress of one table; the runner reports rows as batches land. */
export interface TableProgress {
  increment(rows: number): void;
  stop(): void;
}

export interface SeedProgress {
  table(name: string, total: number): TableProgress;
  /** Stops every bar and its timers; safe to call twice and after a failure. */
  close(): void;
}

export const silentProgress: SeedProgress = {
  table: () => ({ increment() {}, stop() {} }),
  close() {},
};

/** Fits 80 columns with a million-row total. */
const FORMAT = '{table} [{bar}] {percentage}% | {value}/{total} | {duration_formatted} | ETA {eta_formatted}';

/**
 * One bar per table on `stream` (stderr, so stdout keeps only the summary). On a terminal the bars
 * redraw in place; without one (CI, a pipe) each table prints a line when it starts, one every
 * ten seconds while it runs and one when it ends, instead of a redraw per batch.
 */
export function terminalProgress(stream: NodeJS.WriteStream = process.stderr): SeedProgress {
  const options: Options = { format: FORMAT, stream, barsize: 20, autopadding: true, etaBuffer: 50, fps: 5 };
  return skipEmptyTables(stream.isTTY ? multiBarProgress(options) : lineProgress(options));
}

/** A table with nothing to insert (e.g. `--users 0`) gets no bar; the summary still lists it. */
function skipEmptyTables(progress: SeedProgress): SeedProgress {
  return {
    table: (name, total) => (total > 0 ? progress : silentProgress).table(name, total),
    close: () => progress.close(),
  };
}

const label = (name: string) => ({ table: name.padEnd(13) });

function multiBarProgress(options: Options): SeedProgress {
  const bars = new MultiBar({ ...options, hideCursor: true, clearOnComplete: false });
  let open = true;
  return {
    table(name, total) {
      const bar = bars.create(total, 0, label(name));
      return {
        increment: (rows) => bar.increment(rows),
        // Stopping the bar freezes its elapsed time; the multi-bar keeps drawing it until close.
        stop: () => {
          bar.update(total);
          bar.stop();
        },
      };
    },
    // A second stop would move the cursor back up over whatever was printed after the first.
    close() {
      if (open) bars.stop();
      open = false;
    },
  };
}

function lineProgress(options: Options): SeedProgress {
  const open = new Set<SingleBar>();
  const stop = (bar: SingleBar) => {
    if (open.delete(bar)) bar.stop();
  };
  return {
    table(name, total) {
      // clearOnComplete only suppresses the blank line a stopped bar adds when there is no terminal.
      const bar = new SingleBar({ ...options, noTTYOutput: true, notTTYSchedule: 10_000, clearOnComplete: true });
      bar.start(total, 0, label(name));
      open.add(bar);
      return { increment: (rows) => bar.increment(rows), stop: () => stop(bar) };
    },
    close: () => open.forEach(stop),
  };
}
