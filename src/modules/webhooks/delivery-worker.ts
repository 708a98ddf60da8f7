import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { PollingWorker, WorkerLog } from '../../core/jobs/polling-worker.ts';
import { inRootContext } from '../../core/tracing/tracing.ts';
import type { ClaimedDelivery, ClaimRoom, DeliveriesService } from './deliveries.service.ts';
import { createPacing } from './delivery-pacing.ts';

export interface DeliveryWorker extends PollingWorker {
  /** Looks for due deliveries now (deliveries left unclaimed by a fan-out, a manual retry or a replay in this process). */
  wake(): void;
  /** What the fan-out may claim for this worker now (undefined: nothing). */
  claimRoom(): ClaimRoom | undefined;
  /** Takes deliveries the fan-out claimed for it; `left`: the fan-out made others it did not claim. */
  accept(claimed: ClaimedDelivery[], left: boolean): void;
}

export interface DeliveryWorkerOptions {
  pollMs: number;
  /**
   * Requests in flight at once in this process, counting each endpoint's first `perEndpoint`; fast
   * endpoints may have half as many more between them (see `extraSlots`).
   */
  concurrency: number;
  /** Requests in flight at once per endpoint in this process: a slow endpoint holds no more slots than that. */
  perEndpoint: number;
  log: WorkerLog;
}

/**
 * Sends deliveries concurrently: claims due ones, sends each without waiting for the others (each
 * endpoint at most `perEndpoint` at once, `FAST_IN_FLIGHT` times that while it answers fast; the process
 * at most `concurrency` of every endpoint's first `perEndpoint` and half as many beyond them), and claims
 * again when an endpoint's claimed deliveries run low, when woken, and every `pollMs` (retries coming
 * due). A fast endpoint gets up to `CLAIM_AHEAD × perEndpoint` claimed at once, sent one after the other
 * as answers come; a delivery whose lease would run out before its answer could is given back unsent, so
 * another sender never holds it at the same time. Not a `createPollingWorker` loop: that one runs one
 * step at a time, and here the steps (HTTP requests) overlap.
 */
export function createDeliveryWorker(service: DeliveriesService, options: DeliveryWorkerOptions): DeliveryWorker {
  const id = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const pacing = createPacing<ClaimedDelivery>({
    concurrency: options.concurrency,
    perEndpoint: options.perEndpoint,
    endpointOf: (claimed) => claimed.endpoint.id,
  });
  const sendingAll = new Set<Promise<void>>();
  const stopping = new AbortController();
  let stopped = true;
  let claiming: Promise<void> | undefined;
  let again = false;
  /**
   * Whether due deliveries may wait unclaimed (set by a wake-up and the poll, cleared by a claim that
   * found fewer than it had room for): an answer brings a claim only then. Deliveries the fan-out
   * claimed itself need none, and a claim per half of an endpoint's room was a transaction each.
   */
  let backlog = true;
  let timer: NodeJS.Timeout | undefined;

  const track = (work: Promise<void>) => {
    sendingAll.add(work);
    const done = () => sendingAll.delete(work);
    void work.then(done, done);
  };

  /** Sends one delivery (the send and record stages, deliveries.service.ts); its answer frees its slot. */
  function send(claimed: ClaimedDelivery): void {
    const started = performance.now();
    track(
      service
        .deliver(claimed, id, stopping.signal)
        .catch((error: unknown) => options.log.error({ err: error }, 'webhook delivery failed to record'))
        .finally(() => {
          const low = pacing.answered(claimed, performance.now() - started);
          pump();
          if (backlog && low) wake();
        }),
    );
  }

  /** Starts the waiting deliveries that have a free slot; gives back those whose lease ran too short. */
  function pump(): void {
    if (stopped) return;
    const { send: ready, expired } = pacing.take(service.sendable);
    for (const claimed of ready) send(claimed);
    if (expired.length > 0) giveBack(expired);
  }

  function giveBack(claimed: ClaimedDelivery[]): void {
    track(
      service
        .giveBack(claimed, id)
        .catch((error: unknown) => options.log.error({ err: error }, 'webhook deliveries could not be given back')),
    );
  }

  const claimRoom = () => (stopped ? undefined : pacing.room(id));

  async function claimWhileRoom(): Promise<void> {
    do {
      again = false;
      const room = claimRoom();
      if (!room) return;
      const claimed = await service.claim(room);
      const filled = pacing.queue(claimed);
      pump();
      // An endpoint that filled its room may have hidden others' due deliveries behind its own: claim
      // again without it.
      if (claimed.length === room.limit || (claimed.length > 0 && filled.size > 0)) again = true;
      // An endpoint without room may still have due deliveries: the backlog stays until a claim with
      // room for every endpoint finds fewer than it could take.
      backlog = again || [...room.room.values()].some((left) => left <= 0);
    } while (again);
  }

  function wake(): void {
    if (stopped) return;
    backlog = true;
    if (claiming) {
      again = true;
      return;
    }
    // A wake-up from a request (a manual retry, a replay) must not put the claims and attempts in its trace.
    claiming = inRootContext(claimWhileRoom)
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
    claimRoom,
    accept(claimed, left) {
      if (stopped) {
        if (claimed.length > 0) giveBack(claimed);
        return;
      }
      pacing.queue(claimed);
      pump();
      if (left) wake();
    },
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
      // Requests in flight are cut off and their deliveries given back, with the ones still waiting,
      // for another instance to send at once.
      stopping.abort();
      const waiting = pacing.drain();
      if (waiting.length > 0) giveBack(waiting);
      await Promise.all([...sendingAll]);
      // A stop goes on without its database (gone, or closed first): successes not recorded are sent again
      // once their lease runs out (at least once, DECISIONS §10).
      await service
        .flushSuccesses()
        .catch((error: unknown) => options.log.error({ err: error }, 'webhook successes not recorded at stop'));
      await service.closeSender();
    },
  };
}
