/** Arrival delays (ms) and ids seen, for one way out of events (a webhook receiver, a NATS subscriber). */
export function arrivals() {
  const delays: number[] = [];
  const ids = new Set<string>();
  let duplicates = 0;
  return {
    delays,
    ids,
    /** Forgets the delays measured so far (a new workload); the ids stay, to count arrivals against the feed. */
    reset() {
      delays.length = 0;
      duplicates = 0;
    },
    get duplicates() {
      return duplicates;
    },
    add(json: string) {
      const event = JSON.parse(json) as { id: string; timestamp: string };
      if (ids.has(event.id)) duplicates += 1;
      ids.add(event.id);
      delays.push(Date.now() - Date.parse(event.timestamp));
    },
  };
}
export type Arrivals = ReturnType<typeof arrivals>;

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;

/** One line: events seen, repeats, and commit-to-arrival p50, p99 and max. */
export function summary(name: string, seen: Arrivals): string {
  const sorted = [...seen.delays].sort((a, b) => a - b);
  return `${name}: ${seen.delays.length} events (${seen.duplicates} repeated), commit to arrival p50 ${percentile(sorted, 50)} ms, p99 ${percentile(sorted, 99)} ms, max ${sorted.at(-1)} ms`;
}
