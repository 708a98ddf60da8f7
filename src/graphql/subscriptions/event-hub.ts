import { setTimeout as sleep } from 'node:timers/promises';
import type { FeedEvent, FeedPosition } from '../../modules/events/event.ts';
import type { EventsService } from '../../modules/events/events.service.ts';

/** One live subscription's interest in the feed. */
export interface HubSubscriber {
  /** The events of this type with `data[key] === value` (any value when undefined). */
  type: string;
  key: string;
  value: string | undefined;
  deliver(event: FeedEvent): void;
}

export interface EventHub {
  /** Registers a subscriber once the reader knows where the feed stands: it receives the events after that point. */
  add(subscriber: HubSubscriber): Promise<() => void>;
  /** Subscribers registered now (tests, metrics). */
  readonly size: number;
  stop(): Promise<void>;
}

const BATCH = 500;

/** The reader's timing: its poll, and what tells it sooner that something was committed. */
export interface FeedReading {
  /** How often it reads while nothing tells it to (changes made by other instances). */
  pollMs: number;
  /**
   * Calls `nudge` after each commit of this process that wrote an event (the outbox's signal,
   * events/outbox.ts): the reader reads at once instead of at its next poll. Returns the unsubscribe.
   */
  watchCommits?: (nudge: () => void) => () => void;
  /** The least time between two reads started by nudges (a busy writer commits far more often). */
  minGapMs?: number;
  /** Sees each event read once, after its subscribers have it (the feed lag in /metrics). */
  handedOut?: (item: FeedEvent) => void;
}

/**
 * One reader of the event feed per process, for every subscription of the process (not one per
 * subscriber): it starts at the feed's head when the first subscriber arrives, reads with the feed's
 * no-skip read (events/README.md: every event once, in feed order, whichever instance wrote it) every
 * `pollMs`, and right after each event-writing commit of this process (at most one read per `minGapMs`: a change
 * made here reaches its subscribers without waiting for the poll); it hands each event to the
 * subscribers whose field and argument match (an index by type and key value, so an event costs the
 * look-up of its own subscribers), and stops when the last one leaves.
 * A subscriber that arrives while the reader runs gets every event after the reader's position.
 */
export function createEventHub(
  events: EventsService,
  types: readonly string[],
  reading: FeedReading,
  log: (error: unknown) => void,
): EventHub {
  const { pollMs, watchCommits, minGapMs = 5, handedOut } = reading;
  // type -> value ('' for "any") -> subscribers
  const index = new Map<string, Map<string, Set<HubSubscriber>>>();
  let size = 0;
  let running: Promise<void> | undefined;
  let started: Promise<FeedPosition> | undefined;
  let stopping = false;
  let wake: AbortController | undefined;
  // A commit came since the last read began: read again as soon as the gap allows.
  let nudged = false;
  let unwatch: (() => void) | undefined;
  const nudge = () => {
    nudged = true;
    wake?.abort();
  };

  // type -> the data field its subscribers filter on (one per type: postId, authorId, id)
  const keys = new Map<string, string>();

  /** The event's subscribers: those of any value, and those of the event's own value (two look-ups). */
  function deliver(item: FeedEvent): void {
    const byValue = index.get(item.event.type);
    if (!byValue) return;
    const key = keys.get(item.event.type);
    const matching = key === undefined ? undefined : byValue.get(String(item.event.data[key]));
    for (const subscribers of [byValue.get(''), matching])
      if (subscribers) for (const subscriber of subscribers) subscriber.deliver(item);
  }

  async function run(from: FeedPosition): Promise<FeedPosition> {
    let after = from;
    const filter = { types: [...types], prefixes: [] };
    unwatch ??= watchCommits?.(nudge);
    while (size > 0 && !stopping) {
      const began = Date.now();
      nudged = false;
      let batch: FeedEvent[] = [];
      try {
        batch = await events.readFeed({ after, limit: BATCH, filter });
      } catch (error) {
        log(error);
      }
      for (const item of batch) {
        deliver(item);
        handedOut?.(item);
        after = item.position;
      }
      if (batch.length === BATCH) continue;
      if (!nudged) {
        wake = new AbortController();
        await sleep(pollMs, undefined, { signal: wake.signal }).catch(() => {});
        wake = undefined;
      }
      // Nudged during the read or the pause: read again once the least gap since this read began has passed.
      if (nudged) await sleep(Math.max(0, began + minGapMs - Date.now()));
    }
    unwatch?.();
    unwatch = undefined;
    return after;
  }

  /** Resolves once the reader knows its position (the head, or where it had got to when it stopped just now). */
  function start(from?: FeedPosition): Promise<FeedPosition> {
    if (!started) {
      const position = from ? Promise.resolve(from) : events.feedHead();
      started = position;
      running = position.then(run).then(
        (last) => {
          running = undefined;
          started = undefined;
          // A subscriber that arrived while the reader was stopping: go on from where it stopped.
          if (size > 0 && !stopping) void start(last);
        },
        (error: unknown) => {
          running = undefined;
          started = undefined;
          log(error);
        },
      );
    }
    return started;
  }

  return {
    async add(subscriber) {
      // Counted before the reader starts, so that it does not stop at once for want of subscribers.
      size += 1;
      try {
        await start();
      } catch (error) {
        size -= 1;
        throw error;
      }
      const value = subscriber.value ?? '';
      if (subscriber.value !== undefined) keys.set(subscriber.type, subscriber.key);
      let byValue = index.get(subscriber.type);
      if (!byValue) index.set(subscriber.type, (byValue = new Map()));
      let set = byValue.get(value);
      if (!set) byValue.set(value, (set = new Set()));
      set.add(subscriber);
      let removed = false;
      return () => {
        if (removed) return;
        removed = true;
        set.delete(subscriber);
        if (set.size === 0) byValue.delete(value);
        size -= 1;
        if (size === 0) wake?.abort();
      };
    },
    get size() {
      return size;
    },
    async stop() {
      stopping = true;
      wake?.abort();
      await running;
    },
  };
}
