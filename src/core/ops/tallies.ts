import {
  Counter,
  Histogram,
  type CounterConfiguration,
  type HistogramConfiguration,
  type LabelValues,
} from 'prom-client';

/*
 * prom-client builds and looks up a key string from the label values on every `inc` and `observe`
 * (also through a child from `labels()`), three calls a request (the request counter, its duration,
 * the statement's duration): a visible share of a small GET's CPU (bench/RESULTS.md, "Changes",
 * 37). A tally keeps the hot path to a number stored in a cell made once per
 * label set, and hands its figures to the prom-client metric when that is collected (every scrape
 * collects first), so a scrape reads exactly what it read before. prom-client still keeps the series,
 * formats them and owns their names, help and buckets.
 */

/** One label set of a counter: `add` is all a request pays. */
export interface CounterCell {
  add(): void;
}

/** One label set of a histogram: `observe` stores the value; they reach prom-client in batches. */
export interface HistogramCell {
  observe(value: number): void;
}

export interface Tally<Cell, L extends string> {
  /** The cell of one label set, by a key the caller builds cheaply (it must tell the label sets apart). */
  cell(key: string, labels: () => LabelValues<L>): Cell;
  /** Hands everything counted so far to the prom-client metric (its `collect`). */
  flush(): void;
}

/** Values kept per label set before they are handed over (8 bytes each). */
const BATCH = 64;

/** Cells by key, each made once (its series created in prom-client then, so a scrape lists them in the same order). */
function tally<Cell extends { flush(): void }, L extends string>(
  make: (labels: LabelValues<L>) => Cell,
): Tally<Cell, L> {
  const cells = new Map<string, Cell>();
  return {
    cell(key, labels) {
      let cell = cells.get(key);
      if (cell === undefined) {
        cell = make(labels());
        cells.set(key, cell);
      }
      return cell;
    },
    flush() {
      for (const cell of cells.values()) cell.flush();
    },
  };
}

/** Cells of one counter; their counts reach it when it is collected. */
function counterTally<L extends string>(counter: () => Counter<L>): Tally<CounterCell, L> {
  return tally((labels) => new Count(counter, labels));
}

/** Cells of one histogram; their values reach it when a cell's batch is full and when it is collected. */
function histogramTally<L extends string>(histogram: () => Histogram<L>): Tally<HistogramCell, L> {
  return tally((labels) => new Batch(histogram, labels));
}

/** A prom-client counter (registered with `config`) fed through a tally, which it empties when it is collected. */
export function talliedCounter<L extends string>(config: CounterConfiguration<L>): Tally<CounterCell, L> {
  const counter: Counter<L> = new Counter({ ...config, collect: () => cells.flush() });
  const cells = counterTally(() => counter);
  return cells;
}

/** A prom-client histogram (registered with `config`) fed through a tally, which it empties when it is collected. */
export function talliedHistogram<L extends string>(config: HistogramConfiguration<L>): Tally<HistogramCell, L> {
  const histogram: Histogram<L> = new Histogram({ ...config, collect: () => cells.flush() });
  const cells = histogramTally(() => histogram);
  return cells;
}

class Count<L extends string> implements CounterCell {
  private count = 0;
  private readonly counter: () => Counter<L>;
  private readonly labels: LabelValues<L>;

  constructor(counter: () => Counter<L>, labels: LabelValues<L>) {
    this.counter = counter;
    this.labels = labels;
    counter().inc(labels, 0);
  }

  add(): void {
    this.count += 1;
  }

  flush(): void {
    if (this.count === 0) return;
    this.counter().inc(this.labels, this.count);
    this.count = 0;
  }
}

class Batch<L extends string> implements HistogramCell {
  private readonly values = new Float64Array(BATCH);
  private length = 0;
  private readonly histogram: () => Histogram<L>;
  private readonly labels: LabelValues<L>;

  constructor(histogram: () => Histogram<L>, labels: LabelValues<L>) {
    this.histogram = histogram;
    this.labels = labels;
    histogram().zero(labels);
  }

  observe(value: number): void {
    if (!Number.isFinite(value)) return; // prom-client would refuse it at the hand-over
    this.values[this.length++] = value;
    if (this.length === BATCH) this.flush();
  }

  flush(): void {
    if (this.length === 0) return;
    const histogram = this.histogram();
    for (let i = 0; i < this.length; i++) histogram.observe(this.labels, this.values[i]!);
    this.length = 0;
  }
}
