import { createPollingWorker, type PollingWorker, type WorkerLog } from '../../core/jobs/polling-worker.ts';
import { inRootContext } from '../../core/tracing/tracing.ts';
import type { EventsService } from './events.service.ts';

export interface OutboxConsumerOptions {
  /** What the worker is, for its log lines. */
  name: string;
  /** The consumer's name in `event_consumers`: its lease and its place in the feed. */
  consumer: string;
  /** How often it steps with no signal (changes made by other instances). */
  intervalMs: number;
  /**
   * How soon a commit's signal runs a step: the commits within this long after one are taken in one
   * step, so under a steady write load steps come at most this often and grow with the load.
   */
  wakeDelayMs: number;
  log: WorkerLog & { warn(object: unknown, message: string): void };
  /**
   * One step for `holder` (this worker's id, the lease's holder): takes the consumer's next events
   * (`events.consume` or `events.relay`) and handles them. True when there may be more at once.
   */
  step(holder: string): Promise<boolean>;
  /** Whether a signal wakes it now (default: always); while false it only polls. */
  wakesOnCommit?: () => boolean;
  /** Runs at stop, after the lease was given up (a connection to drain). */
  stopped?: () => Promise<void>;
}

/**
 * An outbox consumer's worker (the webhook fan-out, the NATS publisher): polls every `intervalMs`, and
 * is woken by the outbox's after-commit signal (outbox.ts: a commit of this process that wrote an
 * event) to step within `wakeDelayMs`. Its stop stops the signal, waits for the step in hand and gives
 * the consumer's lease up, so another instance goes on at once instead of after the lease.
 */
export function createOutboxConsumer(
  events: Pick<EventsService, 'afterCommit' | 'releaseConsumer'>,
  options: OutboxConsumerOptions,
): PollingWorker {
  const { log, wakesOnCommit = () => true } = options;
  const worker = createPollingWorker({
    name: options.name,
    intervalMs: options.intervalMs,
    wakeDelayMs: options.wakeDelayMs,
    log,
    // A step woken by a request's commit would run in that request's context: its statements would join
    // the request's trace. Each step is the worker's own (an event's trace is joined by what it sends).
    step: (holder) => inRootContext(() => options.step(holder)),
  });
  let unsubscribe: (() => void) | undefined;
  return {
    id: worker.id,
    wake: () => worker.wake(),
    start() {
      unsubscribe ??= events.afterCommit(() => {
        if (wakesOnCommit()) worker.wake();
      });
      worker.start();
    },
    async stop() {
      unsubscribe?.();
      unsubscribe = undefined;
      await worker.stop();
      await events
        .releaseConsumer(options.consumer, worker.id)
        .catch((error: unknown) => log.warn({ err: error }, `${options.name}: lease not released`));
      await options.stopped?.();
    },
  };
}
