import { Counter, Histogram, type Metric } from 'prom-client';

/** The outcome of one attempt, a label of `webhook_delivery_attempts_total`. */
export type AttemptOutcomeLabel = 'succeeded' | 'failed' | 'timeout' | 'gone' | 'refused';

/**
 * Counters and the latency histogram of the deliveries this process makes. Made without a registry:
 * the app adds them to its own (module descriptor's `instruments`), so several apps in one process
 * (the tests) each count their own.
 */
export function createWebhookMetrics() {
  const attempts = new Counter({
    name: 'webhook_delivery_attempts_total',
    help: 'Webhook delivery attempts by outcome (succeeded: 2xx; failed: another status or no connection; timeout; gone: 410; refused: a private address in production)',
    labelNames: ['outcome'] as const,
    registers: [],
  });
  const latency = new Histogram({
    name: 'webhook_delivery_latency_seconds',
    help: "From an event's commit to its successful delivery to one endpoint",
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 30, 300, 3600, 36000],
    registers: [],
  });
  const dead = new Counter({
    name: 'webhook_deliveries_dead_total',
    help: 'Webhook deliveries that ran out of attempts (dead; can be retried by hand)',
    registers: [],
  });
  for (const outcome of ['succeeded', 'failed', 'timeout', 'gone', 'refused'] as const)
    attempts.labels({ outcome }).inc(0);
  return {
    all: [attempts, latency, dead] as Metric[],
    attempt: (outcome: AttemptOutcomeLabel) => attempts.labels({ outcome }).inc(),
    delivered: (seconds: number) => latency.observe(seconds),
    died: () => dead.inc(),
  };
}

export type WebhookMetrics = ReturnType<typeof createWebhookMetrics>;
