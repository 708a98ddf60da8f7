import type { ClaimRoom } from './delivery-fan-out.ts';

/**
 * How many deliveries of a fast endpoint are claimed ahead, in multiples of `perEndpoint`: its next ones
 * are sent as soon as one answers, without a claim (a transaction) between each answer and the next
 * request (a claim per answer held one endpoint to a few hundred deliveries a second).
 */
export const CLAIM_AHEAD = 8;
/**
 * How many requests may be in flight at once to a fast endpoint, in multiples of `perEndpoint`: a busy
 * process reads answers once per turn of its event loop, so `perEndpoint` in flight carried fewer
 * deliveries a second than a busy server writes events, and its deliveries fell seconds behind.
 */
export const FAST_IN_FLIGHT = 4;
/** An endpoint whose answers take longer than this on average is slow: nothing claimed ahead, no more in flight. */
export const FAST_ANSWER_MS = 250;
/** The weight of the latest answer in an endpoint's average answer time. */
const ANSWER_WEIGHT = 0.2;

export interface PacingOptions<T> {
  /** Requests in flight at once in this process, counting each endpoint's first `perEndpoint`. */
  concurrency: number;
  /** Requests in flight at once per endpoint: a slow endpoint holds no more slots than that. */
  perEndpoint: number;
  endpointOf: (item: T) => number;
}

/** This process's deliveries of one endpoint: sending, and claimed but waiting for a free slot. */
interface Line<T> {
  sending: number;
  waiting: T[];
  /** A moving average of its answer times (ms); undefined until one answered. */
  answerMs: number | undefined;
}

/**
 * Claim-ahead and per-endpoint pacing of one process's deliveries, as one object with no I/O: what may
 * be claimed (`room`), what is held (`queue`), what may be sent now (`take`), and what an answer
 * changes (`answered`). The delivery worker does the claiming and sending it decides.
 *
 * The process's slots are of two kinds. Every endpoint's first `perEndpoint` requests in flight take one
 * of the `concurrency` slots; a fast endpoint's requests beyond those (up to `FAST_IN_FLIGHT ×
 * perEndpoint`) take one of the extra slots, half as many, shared by the fast endpoints. A fast endpoint
 * that starts hanging keeps its requests until they time out, but of the first kind it holds only
 * `perEndpoint`, as a slow one does: however many die at once, the others are served as if none had been
 * fast (DECISIONS §10: a slow or dead endpoint delays no other). A fast endpoint may hold `CLAIM_AHEAD ×
 * perEndpoint` deliveries (sending and waiting), a slow one `perEndpoint`.
 */
export function createPacing<T>(options: PacingOptions<T>) {
  const { concurrency, perEndpoint, endpointOf } = options;
  const lines = new Map<number, Line<T>>();
  const extraSlots = Math.max(1, Math.floor(concurrency / 2));
  const fastInFlight = Math.min(perEndpoint * FAST_IN_FLIGHT, perEndpoint + extraSlots);

  const lineOf = (endpointId: number): Line<T> => {
    let line = lines.get(endpointId);
    if (!line) lines.set(endpointId, (line = { sending: 0, waiting: [], answerMs: undefined }));
    return line;
  };
  const sum = (of: (line: Line<T>) => number) => {
    let total = 0;
    for (const line of lines.values()) total += of(line);
    return total;
  };
  const fast = (line: Line<T> | undefined) => line?.answerMs !== undefined && line.answerMs < FAST_ANSWER_MS;
  /** How many of an endpoint's deliveries this process holds at most (sending and waiting). */
  const depth = (line: Line<T> | undefined) => (fast(line) ? perEndpoint * CLAIM_AHEAD : perEndpoint);
  const inFlight = (line: Line<T>) => (fast(line) ? fastInFlight : perEndpoint);
  const held = () => sum((line) => line.sending + line.waiting.length);

  return {
    /** Deliveries held (sending and waiting) over every endpoint. */
    held,
    /** Requests in flight over every endpoint. */
    sending: () => sum((line) => line.sending),

    /** What a claim may take now for `holder`: at most `limit`, per endpoint its room; undefined: nothing. */
    room(holder: string): ClaimRoom | undefined {
      const limit = concurrency * CLAIM_AHEAD - held();
      if (limit <= 0) return undefined;
      const room = new Map([...lines].map(([id, line]) => [id, depth(line) - line.sending - line.waiting.length]));
      return { holder, limit, room, perEndpoint };
    },

    /** Holds claimed deliveries on their endpoints' lines; returns the endpoints that filled their room. */
    queue(items: readonly T[]): Set<number> {
      const filled = new Set<number>();
      for (const item of items) {
        const id = endpointOf(item);
        const line = lineOf(id);
        line.waiting.push(item);
        if (line.sending + line.waiting.length >= depth(line)) filled.add(id);
      }
      return filled;
    },

    /**
     * The waiting deliveries that have a free slot (of their endpoint and of the process), in line order,
     * counted as sending; those `sendable` refuses (a lease too short for an attempt) are dropped from
     * their line and returned apart, to be given back.
     */
    take(sendable: (item: T) => boolean): { send: T[]; expired: T[] } {
      const send: T[] = [];
      const expired: T[] = [];
      let first = sum((line) => Math.min(line.sending, perEndpoint));
      let extra = sum((line) => Math.max(0, line.sending - perEndpoint));
      for (const line of lines.values()) {
        while (line.waiting.length > 0 && line.sending < inFlight(line)) {
          const isFirst = line.sending < perEndpoint;
          if (isFirst ? first >= concurrency : extra >= extraSlots) break;
          const next = line.waiting.shift()!;
          if (!sendable(next)) {
            expired.push(next);
            continue;
          }
          line.sending += 1;
          if (isFirst) first += 1;
          else extra += 1;
          send.push(next);
        }
      }
      for (const [id, line] of lines)
        if (line.sending === 0 && line.waiting.length === 0 && line.answerMs === undefined) lines.delete(id);
      return { send, expired };
    },

    /**
     * One of `item`'s endpoint's requests ended after `tookMs`: its slot is free and its average moves.
     * True when that endpoint's line has run down to half of what it may hold (time to claim again).
     */
    answered(item: T, tookMs: number): boolean {
      const line = lineOf(endpointOf(item));
      line.answerMs = line.answerMs === undefined ? tookMs : line.answerMs + ANSWER_WEIGHT * (tookMs - line.answerMs);
      line.sending -= 1;
      return line.sending + line.waiting.length <= depth(line) / 2;
    },

    /** Every waiting delivery, taken off its line (at stop, to be given back). */
    drain(): T[] {
      return [...lines.values()].flatMap((line) => line.waiting.splice(0));
    },
  };
}

export type Pacing<T> = ReturnType<typeof createPacing<T>>;
