import type { Expression, SqlBool } from 'kysely';
import { requireAdmin } from '../../core/access/guards.ts';
import type { Principal } from '../../core/access/principal.ts';
import { now } from '../../core/clock.ts';
import { dialectOf, type Db } from '../../core/db/database.ts';
import { AppError } from '../../core/errors/app-error.ts';
import { activeTracing } from '../../core/tracing/tracing.ts';
import {
  encodeEventCursor,
  newEventId,
  parseTypeFilter,
  resolveAfter,
  toFeedEvent,
  type FeedEvent,
  type FeedPage,
  type FeedPosition,
  type FeedQuery,
  type FeedRequest,
} from './event.ts';
import { backgroundTransaction, backgroundWrite } from './background-writes.ts';
import type { EventRecorder, EventViews } from './event-recorder.ts';
import * as repo from './events.repository.ts';
import { createOutbox } from './outbox.ts';
import { createConsumerLeases, type ConsumeOptions } from './consumer-leases.ts';
import { createRowIdReserve } from './row-ids.ts';
import { tableOf } from './created-rows.ts';
import { createPlacesFirst } from './places-first.ts';
import { currentImportId } from './import-origin.ts';
import { alone, insertCreatedEvents, insertCreatedRows, unlessUniqueViolation } from './created-rows-many.ts';
import { FIRST_EVENT_TYPES, insertChangedEvents, resourceOf } from './changed-rows-many.ts';
import type { ChangeWriter } from './change-writer.ts';
import { createStoredCopies } from './stored-copies.ts';

/** New rows' ids reserved at a time on PostgreSQL (`row-ids.ts`): one statement per this many inserts. */
const ROW_ID_BLOCK = 16;

export type { ConsumeOptions } from './consumer-leases.ts';
export const EVENT_PAGE_RULES = { defaultLimit: 100, maxLimit: 1000 };

export interface EventsOptions {
  /** How long events are kept (EVENT_RETENTION_HOURS). */
  retentionHours: number;
  /** How often an open stream looks for new events (EVENT_STREAM_POLL_MS). */
  pollMs: number;
  /** Longest silence on a stream before a heartbeat comment (EVENT_STREAM_HEARTBEAT_MS, at most 15 s). */
  heartbeatMs: number;
}

export type { FeedPage, FeedQuery, FeedRequest } from './event.ts';

const earlier = (a: FeedPosition | undefined, b: FeedPosition | undefined) =>
  !a ? b : !b ? a : a.tx < b.tx || (a.tx === b.tx && a.seq < b.seq) ? a : b;

export function createEventsService(db: Db, options: EventsOptions) {
  const nextRowId = createRowIdReserve(ROW_ID_BLOCK);
  const outbox = createOutbox();
  /** What else keeps events past their retention (the webhooks' pending deliveries): the oldest place each still needs. */
  const retentionHolds: Array<() => Promise<FeedPosition | undefined>> = [];
  const eventRow = (type: string, data: Record<string, unknown>) => {
    // The writer's trace (DECISIONS §17), for the webhook attempts and NATS to join; untraced, two nulls.
    const trace = activeTracing()?.activeContext();
    const row = {
      event_id: newEventId(),
      type,
      resource: resourceOf(type, data),
      data: JSON.stringify(data),
      created_at: now(),
      traceparent: trace?.traceparent ?? null,
      tracestate: trace?.tracestate ?? null,
    };
    // A row written by an import (DECISIONS §18); only then the column, so every other write's statement stays as it was.
    const importId = currentImportId();
    return importId === undefined ? row : { ...row, import_id: importId };
  };

  let changeWriter: ChangeWriter | undefined;
  /** Erasure (DECISIONS §19): the stored events and every registered copy of them (stored-copies.ts). */
  const storedCopies = createStoredCopies(repo.scrubEvents);
  async function record(trx: Db, type: string, data: Record<string, unknown>): Promise<void> {
    outbox.recordIn(trx);
    await repo.insertEvent(trx, eventRow(type, data), FIRST_EVENT_TYPES.has(type));
    if (changeWriter) await changeWriter.written(trx, type, data);
  }

  async function recordEach(trx: Db, type: string, datas: readonly Record<string, unknown>[]): Promise<void> {
    if (datas.length === 1) return record(trx, type, datas[0]!);
    if (datas.length > 0) outbox.recordIn(trx);
    await insertChangedEvents(trx, type, datas, eventRow, changeWriter);
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

  const leases = createConsumerLeases(db, (after, limit) => readFeed({ after, limit, filter: undefined }));

  const placesFirst = createPlacesFirst(db);
  const transaction = <T>(writer: Db, work: (trx: Db) => Promise<T>): Promise<T> =>
    placesFirst.before(() => outbox.transaction(writer, work));

  return {
    streamTiming: { pollMs: options.pollMs, heartbeatMs: options.heartbeatMs },

    /** Records one event in `trx`, the change's own transaction, opened by `transaction` (else throws). */
    record,
    /** `record` for each of `datas`, each of a resource of its own, in a few statements (changed-rows-many.ts). */
    recordEach,

    /** Registers what is written with every event, in its transaction (one writer: the history module's revisions). */
    onChange(writer: ChangeWriter): void {
      changeWriter = writer;
    },

    /** Registers a module keeping copies of events (webhook payloads): an erasure scrubs them too. */
    onStoredCopies: storedCopies.register,

    /** A transaction to record events in; the consumers are signalled after its commit if it did (outbox.ts). */
    transaction,

    /** Calls `listener` after each commit of this process that wrote an event; returns the unsubscribe. */
    afterCommit: outbox.afterCommit,

    /** A service's recorder: `views` builds each type's `data` from the service's domain value. */
    recorderFor<M>(views: EventViews<M>): EventRecorder<M> {
      const recordInsert: EventRecorder<M>['recordInsert'] = async (writer, type, insert, row, valueOf) => {
        const inserted = async (trx: Db) => {
          const written = await repo.insertCreatedRow(trx, insert, row);
          await record(trx, type, views[type](valueOf(written)));
          return written;
        };
        // Inside a transaction already (the outbox's, or `record` refuses it), which signals after its commit;
        // SQLite runs in the process: no round trips to save.
        if (writer.isTransaction) return inserted(writer);
        if (dialectOf(writer) === 'sqlite') return transaction(writer, inserted);
        const id = await placesFirst.before(() => nextRowId(writer, tableOf(writer, insert, row)));
        // Every column but the id was given, and now the id: the row as it will be written.
        const full = { ...row, id };
        const data = views[type](valueOf(full as unknown as Parameters<typeof valueOf>[0]));
        const also = changeWriter?.stateRow(type, data);
        const written = await repo.insertCreatedRowWithEvent(writer, insert, full, eventRow(type, data), also);
        outbox.committed();
        return written;
      };
      return {
        transaction,
        scrubStored: storedCopies.scrub,
        record: (trx, type, value) => record(trx, type, views[type](value)),
        recordEach: (trx, type, values) => recordEach(trx, type, values.map(views[type])),
        recordWith: (writer, type, write, valueOf) =>
          transaction(writer, async (trx) => {
            const result = await write(trx);
            if (result !== undefined && result !== null && result !== false)
              await record(trx, type, views[type](valueOf(result)));
            return result;
          }),
        recordInsert,
        async recordInserts(writer, type, insert, rows, valueOf) {
          if (alone(writer, rows))
            return [await recordInsert(writer, type, insert, rows[0]!, valueOf).catch(unlessUniqueViolation)];
          return transaction(writer, async (trx) => {
            const written = await insertCreatedRows(trx, insert, rows);
            const datas = written.flatMap((row) => (row ? [views[type](valueOf(row))] : []));
            if (datas.length > 0) outbox.recordIn(trx);
            await insertCreatedEvents(trx, type, datas, eventRow, (data) => changeWriter?.stateRow(type, data));
            return written;
          });
        },
      };
    },

    /** Admin only; checks `after`/`Last-Event-ID`, `limit` and `types` (422 naming the field). */
    checkFeedRequest,

    /** The next events after the request's position (the stream calls this again from its last cursor). */
    readFeed,

    /** The feed's last event readers can be given now (a reader starting "from now" goes on from it). */
    feedHead: () => repo.findHead(db),

    async listEvents(actor: Principal | null, query: FeedQuery): Promise<FeedPage> {
      const request = await checkFeedRequest(actor, query);
      const items = await readFeed(request);
      const last = items.at(-1);
      const asked = request.after ? encodeEventCursor(request.after) : null;
      return { items, nextCursor: last ? last.cursor : asked };
    },

    /** The halves of `consume` for a consumer with its own transaction (the webhook fan-out): its next events ... */
    nextBatch: (consume: ConsumeOptions): Promise<FeedEvent[]> => leases.claimNextBatch(consume),
    /** ... or, when `onlyIf` holds (no one to hand them to), the move past them all unread (consumer-skip.ts) ... */
    skipAhead: (consume: ConsumeOptions, onlyIf: Expression<SqlBool>) => leases.skipAhead(consume, onlyIf),
    /** ... and the move past them, in the transaction that writes what they made (a lease lost meanwhile fails it). */
    advance: (trx: Db, consume: ConsumeOptions, batch: FeedEvent[]) => leases.advance(trx, consume, batch),

    /**
     * Hands `handle` the consumer's next events, in feed order with the feed's no-skip read, if this
     * instance holds the consumer's lease (taking or renewing it); the consumer moves past them in
     * `handle`'s transaction when it returns, so what `handle` writes there and the move commit together.
     * Returns how many were handled (0 when nothing is new or another instance holds the lease) and what
     * `handle` returned in the transaction that committed (undefined when it did not run). A `handle`
     * that throws leaves the position where it was (its events come again).
     */
    async consume<T>(
      consume: ConsumeOptions,
      handle: (trx: Db, batch: FeedEvent[]) => Promise<T>,
    ): Promise<{ handled: number; result: T | undefined }> {
      const batch = await leases.claimNextBatch(consume);
      if (batch.length === 0) return { handled: 0, result: undefined };
      const result = await backgroundTransaction(db, async (trx) => {
        const value = await handle(trx, batch);
        await leases.advance(trx, consume, batch);
        return value;
      });
      return { handled: batch.length, result };
    },

    /**
     * As `consume`, but `send` runs outside any transaction and the move follows it: for a consumer that
     * only talks to the network (the NATS publisher), so that waiting on it holds no transaction open
     * (on SQLite a transaction holds the one connection, and every request would wait behind it). A
     * `send` that throws leaves the position where it was; one that returns moves the consumer past the
     * batch. Were the lease taken over meanwhile, the move fails and the new holder sends them again.
     */
    async relay(consume: ConsumeOptions, send: (batch: FeedEvent[]) => Promise<void>): Promise<number> {
      const batch = await leases.claimNextBatch(consume);
      if (batch.length === 0) return 0;
      await send(batch);
      await backgroundWrite(db, (writer) => leases.advance(writer, consume, batch));
      return batch.length;
    },

    /**
     * Registers `consumer`'s place at the feed's head (unless it has one) before this process writes its
     * first event, so every event written after that is the consumer's, whichever process runs its worker
     * and whenever that starts.
     */
    placeBeforeWrites: (consumer: string): void => placesFirst.add(consumer),

    /** Gives the consumer's lease up (at stop), so another instance goes on at once. */
    releaseConsumer: (consumer: string, holder: string): Promise<void> => leases.release(consumer, holder),

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
