import { Counter, Gauge, type Registry } from 'prom-client';

/**
 * Gauges a module reads on each scrape (the report queue: one query). `read` is called at most once
 * per scrape for all of them; a read that fails or takes over a second leaves the previous values.
 */
export interface ScrapedGauges {
  /** Gauge name → help text. */
  gauges: Record<string, string>;
  read(): Promise<Record<string, number>>;
  /** Counters the module keeps in memory (e.g. publications by outcome), by name; read on each scrape too. */
  counters?: Record<string, ScrapedCounter>;
}

/** A counter family with one label, whose totals since the process started the module keeps itself. */
export interface ScrapedCounter {
  help: string;
  label: string;
  /** The total for each value of the label (values present from the start show as 0). */
  totals(): Record<string, number>;
}

const SCRAPE_READ_TIMEOUT_MS = 1000;

/** Registers the gauges of `source`, all filled from one `read` per scrape. */
export function addScrapedGauges(source: ScrapedGauges, registers: Registry[]): void {
  let pending: { at: number; values: Promise<Record<string, number> | null> } | undefined;
  const values = () => {
    const now = Date.now();
    if (!pending || now - pending.at > SCRAPE_READ_TIMEOUT_MS) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<null>((resolve) => {
        timer = setTimeout(() => resolve(null), SCRAPE_READ_TIMEOUT_MS);
      });
      const read = source.read().catch(() => null);
      pending = { at: now, values: Promise.race([read, timeout]).finally(() => clearTimeout(timer)) };
    }
    return pending.values;
  };
  for (const [name, help] of Object.entries(source.gauges)) {
    new Gauge({
      name,
      help,
      registers,
      async collect() {
        const value = (await values())?.[name];
        if (value !== undefined) this.set(value);
      },
    });
  }
  for (const [name, counter] of Object.entries(source.counters ?? {})) {
    new Counter({
      name,
      help: counter.help,
      labelNames: [counter.label],
      registers,
      collect() {
        this.reset();
        for (const [value, total] of Object.entries(counter.totals())) this.inc({ [counter.label]: value }, total);
      },
    });
  }
}
