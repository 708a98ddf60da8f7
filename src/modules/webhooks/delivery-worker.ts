import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { PollingWorker, WorkerLog } from '../../core/jobs/polling-worker.ts';
import { inRootContext } from '../../core/tracing/tracing.ts';
import type { ClaimedDelivery, ClaimRoom, DeliveriesService } from './deliveries.service.ts';

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
 * How many deliveries of a fast endpoint are claimed ahead, in multiples of `perEndpoint`: its next ones
 * are sent as soon as one answers, without a claim (a transaction) between each answer and the next
 * request. One claim per answer held the rate of one endpoint to ~300 a second on PostgreSQL (a claim
 * took ~10 ms in round trips) and ~400 on SQLite (a claim per delivery, each holding the one connection).
 */
const CLAIM_AHEAD = 8;
/**
 * How many requests may be in flight at once to a fast endpoint, in multiples of `perEndpoint`. The
 * answers of a busy process are read once per turn of its event loop (~10 ms with 32 connections of
 * requests on one core), so `perEndpoint` requests in flight carried fewer deliveries a second than a
 * busy SQLite server writes events: its deliveries fell seconds behind, and kept up with four times as
 * many in flight. A slow endpoint keeps `perEndpoint`.
 */
const FAST_IN_FLIGHT = 4;
/** An endpoint whose answers take longer than this on average is slow: nothing claimed ahead, no more in flight. */
const FAST_ANSWER_MS = 250;
/** The weight of the latest answer in an endpoint's average answer time. */
const ANSWER_WEIGHT = 0.2;

/** This process's deliveries of one endpoint: sending, and claimed but waiting for a free slot. */
interface Line {
  sending: number;
  waiting: ClaimedDelivery[];
  /** A moving average of its answer times (ms); undefined until one answered. */
  answerMs: number | undefined;
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
  const lines = new Map<number, Line>();
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

  const lineOf = (endpointId: number): Line => {
    let line = lines.get(endpointId);
    if (!line) lines.set(endpointId, (line = { sending: 0, waiting: [], answerMs: undefined }));
    return line;
  };
  /** This process's requests in flight, and deliveries it holds (in flight and waiting), over every endpoint. */
  const count = (of: (line: Line) => number) => [...lines.values()].reduce((sum, line) => sum + of(line), 0);
  const heldNow = () => count((line) => line.sending + line.waiting.length);
  const fast = (line: Line | undefined) => line?.answerMs !== undefined && line.answerMs < FAST_ANSWER_MS;
  /** How many of an endpoint's deliveries this process holds at most (sending and waiting). */
  const depth = (line: Line | undefined) => (fast(line) ? options.perEndpoint * CLAIM_AHEAD : options.perEndpoint);
  /**
   * The process's slots are of two kinds. Every endpoint's first `perEndpoint` requests in flight take
   * one of the `concurrency` slots; a fast endpoint's requests beyond those take one of `extraSlots`
   * more (half as many), shared by the fast endpoints. A fast endpoint that starts hanging keeps its
   * requests until they time out, but of the first kind it holds only `perEndpoint`, as a slow one does:
   * however many die at once, the endpoints left are served as if none had been fast (DECISIONS §10: a
   * slow or dead endpoint delays no other).
   */
  const extraSlots = Math.max(1, Math.floor(options.concurrency / 2));
  const fastInFlight = Math.min(options.perEndpoint * FAST_IN_FLIGHT, options.perEndpoint + extraSlots);
  const inFlight = (line: Line) => (fast(line) ? fastInFlight : options.perEndpoint);
  /** Slots in use: of the first kind (each endpoint's first `perEndpoint`) and extra. */
  const slotsInUse = () => ({
    first: count((line) => Math.min(line.sending, options.perEndpoint)),
    extra: count((line) => Math.max(0, line.sending - options.perEndpoint)),
  });

  function send(claimed: ClaimedDelivery, line: Line): void {
    line.sending += 1;
    const started = performance.now();
    const done = service
      .deliver(claimed, id, stopping.signal)
      .catch((error: unknown) => options.log.error({ err: error }, 'webhook delivery failed to record'))
      .finally(() => {
        const took = performance.now() - started;
        line.answerMs = line.answerMs === undefined ? took : line.answerMs + ANSWER_WEIGHT * (took - line.answerMs);
        line.sending -= 1;
        sendingAll.delete(done);
        pump();
        // Claims again once half of what this endpoint may hold is used up, not after every answer.
        if (backlog && line.sending + line.waiting.length <= depth(line) / 2) wake();
      });
    sendingAll.add(done);
  }

  /** Starts the waiting deliveries that have a free slot (of their endpoint and of the process). */
  function pump(): void {
    const expired: ClaimedDelivery[] = [];
    const used = slotsInUse();
    for (const line of lines.values()) {
      while (!stopped && line.waiting.length > 0 && line.sending < inFlight(line)) {
        const first = line.sending < options.perEndpoint;
        if (first ? used.first >= options.concurrency : used.extra >= extraSlots) break;
        const next = line.waiting.shift()!;
        if (service.sendable(next)) {
          send(next, line);
          if (first) used.first += 1;
          else used.extra += 1;
        } else expired.push(next);
      }
    }
    for (const [endpointId, line] of lines)
      if (line.sending === 0 && line.waiting.length === 0 && line.answerMs === undefined) lines.delete(endpointId);
    if (expired.length > 0) giveBack(expired);
  }

  function giveBack(claimed: ClaimedDelivery[]): void {
    const back = service
      .giveBack(claimed, id)
      .catch((error: unknown) => options.log.error({ err: error }, 'webhook deliveries could not be given back'))
      .finally(() => sendingAll.delete(back));
    sendingAll.add(back);
  }

  function claimRoom(): ClaimRoom | undefined {
    const free = options.concurrency * CLAIM_AHEAD - heldNow();
    if (stopped || free <= 0) return undefined;
    const room = new Map(
      [...lines].map(([endpointId, line]) => [endpointId, depth(line) - line.sending - line.waiting.length]),
    );
    return { holder: id, limit: free, room, perEndpoint: options.perEndpoint };
  }

  /** Queues claimed deliveries on their endpoints' lines; the endpoints that filled their room. */
  function queue(claimed: ClaimedDelivery[]): Set<number> {
    const filled = new Set<number>();
    for (const item of claimed) {
      const line = lineOf(item.endpoint.id);
      line.waiting.push(item);
      if (line.sending + line.waiting.length >= depth(line)) filled.add(item.endpoint.id);
    }
    pump();
    return filled;
  }

  async function claimWhileRoom(): Promise<void> {
    do {
      again = false;
      const room = claimRoom();
      if (!room) return;
      const claimed = await service.claim(id, room.limit, room.room, options.perEndpoint);
      const filled = queue(claimed);
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
      queue(claimed);
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
      const waiting = [...lines.values()].flatMap((line) => line.waiting.splice(0));
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
