import type { Generated, Insertable, Selectable } from 'kysely';
import type { Timestamp } from '../../core/db/tables.ts';

/**
 * The outbox: one row per event, written in the change's own transaction (README.md).
 * `(tx, seq)` is the feed order: `tx` the writing transaction's id on PostgreSQL (0 on SQLite, whose
 * single writer makes `seq`, the insert order, the commit order), `seq` an ever-increasing row id.
 */
export interface EventsTable {
  seq: Generated<number>;
  tx: Generated<number>;
  event_id: string;
  type: string;
  /** `<resource>:<id>` (a like: `like:<commentId>:<userId>`): whose events must keep their order. */
  resource: string;
  /** The event's `data`, JSON text. */
  data: string;
  created_at: Timestamp;
}

/**
 * Where each consumer of the outbox (webhook dispatcher, NATS publisher: not built yet) has got to,
 * in feed order. The retention purge keeps every event a registered consumer has not passed.
 */
export interface EventConsumersTable {
  consumer: string;
  tx: number;
  seq: number;
  updated_at: Timestamp;
}

declare module '../../core/db/tables.ts' {
  interface Tables {
    events: EventsTable;
    event_consumers: EventConsumersTable;
  }
}

export type EventRow = Selectable<EventsTable>;
export type NewEventRow = Insertable<EventsTable>;
