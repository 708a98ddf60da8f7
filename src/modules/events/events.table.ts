import type { Generated, Insertable, Selectable } from 'kysely';
import type { Timestamp } from '../../core/db/tables.ts';

/**
 * The outbox: one row per event, written in the change's own transaction (README.md).
 * `(tx, seq)` is the feed order: on PostgreSQL `tx` is the writing transaction's id, raised to the
 * resource's latest event's `tx` when that is higher (events.repository.ts); on SQLite it is 0 (one
 * writer at a time makes `seq`, the insert order, the commit order). `seq` is an ever-increasing row id.
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
  /** The writer's W3C trace context (DECISIONS §17); null when tracing was off or nothing was traced. */
  traceparent: string | null;
  tracestate: string | null;
  /** The import that wrote the row this event is of (DECISIONS §18), null for any other write. */
  import_id: number | null;
}

/**
 * Where each consumer of the outbox (the webhook fan-out, the NATS publisher) has got to, in feed
 * order, and which instance may advance it (`holder`, until `lease_until`). The retention purge keeps
 * every event a registered consumer has not passed.
 */
export interface EventConsumersTable {
  consumer: string;
  tx: number;
  seq: number;
  updated_at: Timestamp;
  holder: string | null;
  lease_until: Timestamp | null;
}

declare module '../../core/db/tables.ts' {
  interface Tables {
    events: EventsTable;
    event_consumers: EventConsumersTable;
  }
}

export type EventRow = Selectable<EventsTable>;
export type NewEventRow = Insertable<EventsTable>;
