import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { PollingWorker, WorkerLog } from '../../core/jobs/polling-worker.ts';
import type { ClaimedDelivery, DeliveriesService } from './deliveries.service.ts';

export interface DeliveryWorker extends PollingWorker {
  /** Looks for due deliveries now (after a fan-out or a manual retry in this process). */
  wake(): void;
}

export interface DeliveryWorkerOptions {
  pollMs: number;
  /** Requests in flight at once in this process. */
  concurrency: number;
  /** Requests in flight at once per endpoint in this process: a slow endpoint holds no more slots than that. */
  perEndpoint: number;
  log: WorkerLog;
}

/**
 * Sends deliveries concurrently: claims as many due ones as it has free slots (each endpoint at most
 * `perEndpoint` at once), sends each without waiting for the others, and claims again whenever one
 * finishes, when woken, and every `pollMs` (retries coming due). Not a `createPollingWorker` loop:
 * that one runs one step at a time, and here the steps (HTTP requests) overlap.
 */
export function createDeliveryWorker(service: DeliveriesService, options: DeliveryWorkerOptions): DeliveryWorker {
  const id = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const inFlight = new Map<number, number>();
  const sending = new Set<Promise<void>>();
  const stopping = new AbortController();
  let total = 0;
  let stopped = true;
  let claiming: Promise<void> | undefined;
  let again = false;
  let timer: NodeJS.Timeout | undefined;

  function send(claimed: ClaimedDelivery): void {
    const endpointId = claimed.endpoint.id;
    total += 1;
    inFlight.set(endpointId, (inFlight.get(endpointId) ?? 0) + 1);
    const done = service
      .deliver(claimed, id, stopping.signal)
      .catch((error: unknown) => options.log.error({ err: error }, 'webhook delivery failed to record'))
      .finally(() => {
        total -= 1;
        const left = (inFlight.get(endpointId) ?? 1) - 1;
        if (left === 0) inFlight.delete(endpointId);
        else inFlight.set(endpointId, left);
        sending.delete(done);
        wake();
      });
    sending.add(done);
  }

  async function claimWhileRoom(): Promise<void> {
    do {
      again = false;
      const free = options.concurrency - total;
      if (stopped || free <= 0) return;
      const room = new Map([...inFlight].map(([endpointId, count]) => [endpointId, options.perEndpoint - count]));
      const claimed = await service.claim(id, free, room, options.perEndpoint);
      for (const item of claimed) send(item);
      if (claimed.length === free) again = true;
    } while (again);
  }

  function wake(): void {
    if (stopped) return;
    if (claiming) {
      again = true;
      return;
    }
    claiming = claimWhileRoom()
      .catch((error: unknown) => options.log.error({ err: error }, 'webhook delivery claim failed'))
      .finally(() => {
        claiming = undefined;
      });
  }

  function poll(): void {
    timer = setTimeout(() => {
      wake();
      if (!stopped) poll();
    }, options.pollMs);
    timer.unref();
  }

  return {
    id,
    wake,
    start() {
      if (!stopped) return;
      stopped = false;
      wake();
      poll();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await claiming;
      // Requests in flight are cut off and their deliveries given back, for another instance to send at once.
      stopping.abort();
      await Promise.all([...sending]);
      await service.flushSuccesses();
      await service.closeSender();
    },
  };
}
