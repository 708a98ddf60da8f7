/**
 * Whether the database serves other work besides an import, so a worker writes the import's chunks in more
 * than one lane only while it does not (IMPORT_LANES with IMPORT_YIELD, PostgreSQL; DECISIONS §18's cost:
 * the API's latency during an import, and the import's own time).
 *
 * Lanes make an import on an idle machine about a third quicker, but side by side they take the cores and
 * the database from the API's requests. The worker cannot see the API's load; the database can: its count
 * of committed and rolled-back transactions (`pg_stat_database`) grows by thousands a second under an
 * API's traffic and by tens under an import and the background workers alone. As online schema tools
 * throttle on the server's own count of running work (gh-ost's `Threads_running`), the gauge reads that
 * count at most once per window and calls the database busy when others' transactions (the count less the
 * import's own chunks) reached `busyPerSecond` over the last window: a rate over a whole window, so the
 * short gaps between requests do not flip it. It starts busy (no reading yet: an import begins in one lane).
 */

export interface LoadGaugeSettings {
  /** The shortest time between two readings: the statistics reach the count about once a second. */
  windowMs: number;
  /** Other transactions a second from which the database counts as busy. */
  busyPerSecond: number;
}

export const LOAD_GAUGE: LoadGaugeSettings = { windowMs: 2000, busyPerSecond: 300 };

export interface LoadGauge {
  /** The import's own transactions since the last reading, not counted as other work. */
  own(transactions: number): void;
  /** True while the last window saw other work (or no window has passed yet). */
  busy(): Promise<boolean>;
}

/**
 * A gauge over `readTransactions` (the database's count of transactions ended so far); `clock` in ms.
 * A failed reading counts as busy (the cautious answer) and is tried again after a window.
 */
export function createLoadGauge(
  readTransactions: () => Promise<number>,
  settings: LoadGaugeSettings = LOAD_GAUGE,
  clock: () => number = () => performance.now(),
): LoadGauge {
  let last: { at: number; count: number } | undefined;
  let lastTry = -Infinity;
  let own = 0;
  let busy = true;
  return {
    own(transactions) {
      own += transactions;
    },
    async busy() {
      const at = clock();
      if (at - lastTry < settings.windowMs) return busy;
      lastTry = at;
      let count: number;
      try {
        count = await readTransactions();
      } catch {
        busy = true;
        return busy;
      }
      if (last) {
        const others = count - last.count - own;
        busy = others >= (settings.busyPerSecond * (at - last.at)) / 1000;
      }
      last = { at, count };
      own = 0;
      return busy;
    },
  };
}
