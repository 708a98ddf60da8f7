import { requireAdmin } from '../../core/access/guards.ts';
import type { Principal } from '../../core/access/principal.ts';
import { now } from '../../core/clock.ts';
import { dialectOf, observeQueries, type Db } from '../../core/db/database.ts';
import { AppError } from '../../core/errors/app-error.ts';
import {
  EVENT_TYPES,
  encodeEventCursor,
  newEventId,
  parseTypeFilter,
  resolveAfter,
  toFeedEvent,
  type FeedEvent,
  type FeedPosition,
  type TypeFilter,
} from './event.ts';
import { backgroundTransaction, backgroundWrite } from './background-writes.ts';
import type { EventRecorder, EventViews } from './event-recorder.ts';
import * as repo from './events.repository.ts';
import { createRowIdReserve } from './row-ids.ts';

/** New rows' ids reserved at a time on PostgreSQL (`row-ids.ts`): one statement per this many inserts. */
const ROW_ID_BLOCK = 16;

export const EVENT_PAGE_RULES = { defaultLimit: 100, maxLimit: 1000 };

export interface EventsOptions {
  /** How long events are kept (EVENT_RETENTION_HOURS). */
  retentionHours: number;
  /** How often an open stream looks for new events (EVENT_STREAM_POLL_MS). */
  pollMs: number;
  /** Longest silence on a stream before a heartbeat comment (EVENT_STREAM_HEARTBEAT_MS, at most 15 s). */
  heartbeatMs: number;
}

export interface FeedQuery {
  after?: string | undefined;
  /** `Last-Event-ID` of a resuming stream: wins over `after`. */
  lastEventId?: string | undefined;
  limit?: number | undefined;
  types?: string | undefined;
}

/** A checked feed request: where to start, how many, which types. */
export interface FeedRequest {
  after: FeedPosition | undefined;
  limit: number;
  filter: TypeFilter | undefined;
}

/** How a consumer of the outbox (the webhook fan-out, the NATS publisher) takes its next events. */
export interface ConsumeOptions {
  /** The consumer's name in `event_consumers`. */
  consumer: string;
  /** This instance (a polling worker's id): the lease's holder. */
  holder: string;
  /** Events per batch. */
  limit: number;
  /** How long the lease lasts without a renewal: an instance that dies gives the consumer up after it. */
  leaseMs: number;
}

export interface FeedPage {
  items: FeedEvent[];
  /** The last event's cursor; with nothing new, the cursor asked for (null when none was). */
  nextCursor: string | null;
}

/**
 * Types whose resource gets a new id in the writing transaction (ids are never reused), so no other
 * transaction can have written its events: a like's key (comment, user) comes back after an unlike.
 */
const FIRST_EVENT_TYPES = new Set<string>(
  EVENT_TYPES.filter((type) => type.endsWith('.created') && type !== 'like.created'),
);

/** Whose events must stay in order: the resource named by the type and `data`'s ids. */
function resourceOf(type: string, data: Record<string, unknown>): string {
  const resource = type.split('.')[0]!;
  if (data.id !== undefined) return `${resource}:${String(data.id)}`;
  return `${resource}:${String(data.commentId)}:${String(data.userId)}`;
}

const earlier = (a: FeedPosition | undefined, b: FeedPosition | undefined) =>
  !a ? b : !b ? a : a.tx < b.tx || (a.tx === b.tx && a.seq < b.seq) ? a : b;

export function createEventsService(db: Db, options: EventsOptions) {
  const nextRowId = createRowIdReserve(ROW_ID_BLOCK);
  /** What else keeps events past their retention (the webhooks' pending deliveries): the oldest place each still needs. */
  const retentionHolds: Array<() => Promise<FeedPosition | undefined>> = [];

  const eventRow = (type: string, data: Record<string, unknown>) => ({
    event_id: newEventId(),
    type,
    resource: resourceOf(type, data),
    data: JSON.stringify(data),
    created_at: now(),
  });

  async function record(trx: Db, type: string, data: Record<string, unknown>): Promise<void> {
    await repo.insertEvent(trx, eventRow(type, data), FIRST_EVENT_TYPES.has(type));
  }

  async function checkFeedRequest(actor: Principal | null, query: FeedQuery): Promise<FeedRequest> {
    requireAdmin(actor);
    const limit = query.limit ?? EVENT_PAGE_RULES.defaultLimit;
    if (!Number.isInteger(limit) || limit < 1 || limit > EVENT_PAGE_RULES.maxLimit) {
      throw AppError.validation([
        { field: 'limit', message: `must be an integer from 1 to ${EVENT_PAGE_RULES.maxLimit}` },
      ]);
    }
    const filter = parseTypeFilter(query.types);
    const field = query.lastEventId !== undefined ? 'Last-Event-ID' : 'after';
    const after = await resolveAfter(query.lastEventId ?? query.after, field, (id) =>
      repo.findPositionOfEventId(db, id),
    );
    return { after, limit, filter };
  }

  async function readFeed(request: FeedRequest): Promise<FeedEvent[]> {
    return (await repo.listEventsAfter(db, request)).map(toFeedEvent);
  }

  /**
   * When each lease this process holds is due for renewal: a lease is renewed (a write) once half of it
   * has passed, not on every step; in between a step only reads where the consumer is, while this
   * process still holds it. A write per step cost a commit per step of every consumer (on SQLite a
   * synchronous one). While a lease is this process's, no other instance can take it (only a lease run
   * out can be), and a renewal comes before it runs out.
   */
  const renewals = new Map<string, number>();
  const keyOf = (consume: Pick<ConsumeOptions, 'consumer' | 'holder'>) => `${consume.consumer}\u0000${consume.holder}`;

  /** Where the consumer is, if this instance holds (or now takes or renews) its lease; undefined otherwise. */
  async function heldPosition(consume: ConsumeOptions): Promise<FeedPosition | undefined> {
    const at = Date.now();
    const key = keyOf(consume);
    if (at < (renewals.get(key) ?? 0)) {
      const position = await repo.findHeldPosition(db, consume.consumer, consume.holder);
      if (position) return position;
    }
    const position = await backgroundWrite(db, (writer) =>
      repo.claimConsumer(writer, {
        consumer: consume.consumer,
        holder: consume.holder,
        now: new Date(at).toISOString(),
        leaseUntil: new Date(at + consume.leaseMs).toISOString(),
      }),
    );
    if (position) renewals.set(key, at + consume.leaseMs / 2);
    else renewals.delete(key);
    return position;
  }

  /** The consumer's next events, if this instance holds (takes or renews) its lease; none otherwise. */
  async function claimNextBatch(consume: ConsumeOptions): Promise<FeedEvent[]> {
    const position = await heldPosition(consume);
    return position ? readFeed({ after: position, limit: consume.limit, filter: undefined }) : [];
  }

  /** Moves the consumer past `batch`; throws when another instance has taken the lease over. */
  async function advance(writer: Db, consume: ConsumeOptions, batch: FeedEvent[]): Promise<void> {
    const moved = await repo.advanceConsumer(writer, {
      consumer: consume.consumer,
      holder: consume.holder,
      position: batch.at(-1)!.position,
      now: now(),
    });
    if (!moved) {
      renewals.delete(keyOf(consume));
      throw new Error(`event consumer ${consume.consumer}: the lease was taken over by another instance`);
    }
  }

  return {
    streamTiming: { pollMs: options.pollMs, heartbeatMs: options.heartbeatMs },

    /** Records one event in `trx`, the change's own transaction. */
    record,

    /** A service's recorder: `views` builds each type's `data` from the service's domain value. */
    recorderFor<M>(views: EventViews<M>): EventRecorder<M> {
      return {
        record: (trx, type, value) => record(trx, type, views[type](value)),
        recordWith: (writer, type, write, valueOf) =>
          writer.transaction().execute(async (trx) => {
            const result = await write(trx);
            if (result !== undefined && result !== null && result !== false)
              await record(trx, type, views[type](valueOf(result)));
            return result;
          }),
        async recordInsert(writer, type, table, row, valueOf) {
          if (dialectOf(writer) === 'sqlite') {
            return writer.transaction().execute(async (trx) => {
              const written = await repo.insertRow<Parameters<typeof valueOf>[0]>(trx, table, row);
              await record(trx, type, views[type](valueOf(written)));
              return written;
            });
          }
          const id = await nextRowId(writer, table);
          const full = { ...row, id } as Parameters<typeof valueOf>[0];
          return repo.insertRowWithEvent(writer, table, full, eventRow(type, views[type](valueOf(full))));
        },
      };
    },

    /** Admin only; checks `after`/`Last-Event-ID`, `limit` and `types` (422 naming the field). */
    checkFeedRequest,

    /** The next events after the request's position (the stream calls this again from its last cursor). */
    readFeed,

    /** The feed's last event readers can be given now (a reader starting "from now" goes on from it). */
    feedHead: () => repo.findHead(db),

    /**
     * Calls `listener` after each commit of this process (most write an event: the consumers have work):
     * a transaction's `commit`, or a row written with its `*.created` event in one statement.
     */
    onCommit: (listener: () => void): (() => void) =>
      observeQueries(db, (text, _ms, failed) => {
        if (!failed && (text === 'commit' || repo.isRowWithEventStatement(text))) listener();
      }),

    async listEvents(actor: Principal | null, query: FeedQuery): Promise<FeedPage> {
      const request = await checkFeedRequest(actor, query);
      const items = await readFeed(request);
      const last = items.at(-1);
      const asked = request.after ? encodeEventCursor(request.after) : null;
      return { items, nextCursor: last ? last.cursor : asked };
    },

    /**
     * Hands `handle` the consumer's next events, in feed order with the feed's no-skip read, if this
     * instance holds the consumer's lease (taking or renewing it); the consumer moves past them in
     * `handle`'s transaction when it returns, so what `handle` writes there and the move commit together.
     * Returns how many were handled: 0 when nothing is new or another instance holds the lease. A
     * `handle` that throws leaves the position where it was (its events come again).
     */
    async consume(consume: ConsumeOptions, handle: (trx: Db, batch: FeedEvent[]) => Promise<void>): Promise<number> {
      const batch = await claimNextBatch(consume);
      if (batch.length === 0) return 0;
      await backgroundTransaction(db, async (trx) => {
        await handle(trx, batch);
        await advance(trx, consume, batch);
      });
      return batch.length;
    },

    /**
     * As `consume`, but `send` runs outside any transaction and the move follows it: for a consumer that
     * only talks to the network (the NATS publisher), so that waiting on it holds no transaction open
     * (on SQLite a transaction holds the one connection, and every request would wait behind it). A
     * `send` that throws leaves the position where it was; one that returns moves the consumer past the
     * batch. Were the lease taken over meanwhile, the move fails and the new holder sends them again.
     */
    async relay(consume: ConsumeOptions, send: (batch: FeedEvent[]) => Promise<void>): Promise<number> {
      const batch = await claimNextBatch(consume);
      if (batch.length === 0) return 0;
      await send(batch);
      await backgroundWrite(db, (writer) => advance(writer, consume, batch));
      return batch.length;
    },

    /** Gives the consumer's lease up (at stop), so another instance goes on at once. */
    releaseConsumer(consumer: string, holder: string): Promise<void> {
      renewals.delete(keyOf({ consumer, holder }));
      return backgroundWrite(db, (writer) => repo.releaseConsumer(writer, consumer, holder));
    },

    /** Events the consumer has not passed yet (its backlog, for `/metrics`). */
    countBehind: (consumer: string) => repo.countBehind(db, consumer),

    /** Keeps events past their retention from the place `oldestNeeded` returns on (undefined: none needed). */
    holdRetention(oldestNeeded: () => Promise<FeedPosition | undefined>): void {
      retentionHolds.push(oldestNeeded);
    },

    /** Removes events older than the retention, keeping those a consumer has not passed or a hold needs. */
    async purgeExpired(): Promise<number> {
      const cutoff = new Date(Date.now() - options.retentionHours * 3_600_000).toISOString();
      let keepFrom = await repo.findSlowestConsumer(db);
      for (const hold of retentionHolds) {
        const needed = await hold();
        // A hold needs the event at its place itself: keep from just before it.
        keepFrom = earlier(keepFrom, needed && { tx: needed.tx, seq: needed.seq - 1 });
      }
      return backgroundWrite(db, (writer) => repo.deleteEventsBefore(writer, cutoff, keepFrom));
    },

    /** Events kept now, for `/metrics`. */
    countEvents: () => repo.countEvents(db),
  };
}

export type EventsService = ReturnType<typeof createEventsService>;
