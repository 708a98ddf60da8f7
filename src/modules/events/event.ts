import { randomUUIDv7 } from 'node:crypto';
import { AppError } from '../../core/errors/app-error.ts';
import type { TraceContext } from '../../core/tracing/tracing.ts';
import type { EventRow } from './events.table.ts';

/** DECISIONS §10's catalogue: every type the service emits. */
export const EVENT_TYPES = [
  'user.created',
  'user.updated',
  'user.deleted',
  'user.erased',
  'post.created',
  'post.updated',
  'post.deleted',
  'comment.created',
  'comment.deleted',
  'like.created',
  'like.deleted',
  'product.created',
  'product.updated',
  'product.deleted',
  'user.restored',
  'user.purged',
  'post.restored',
  'post.purged',
  'comment.restored',
  'comment.purged',
  'product.restored',
  'product.purged',
  'order.created',
  'order.paid',
  'order.cancelled',
  'order.refunded',
  'report.completed',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** The resources of the catalogue, for `order.*` filters. */
const RESOURCES = new Set(EVENT_TYPES.map((type) => type.split('.')[0]!));

/**
 * Every selector `types` and a webhook's `events` take: `*`, a resource's prefix (`order.*`) or a type.
 * The documents' patterns are made of this list, and `parseTypeFilter` checks against the same sets.
 */
export const EVENT_SELECTORS: readonly string[] = ['*', ...[...RESOURCES].map((name) => `${name}.*`), ...EVENT_TYPES];

/** The event as every consumer sees it (feed, stream, and later webhooks and the broker). */
export interface DomainEvent {
  id: string;
  type: EventType;
  timestamp: string;
  /** The import that wrote the row (DECISIONS §18); absent for any other write. */
  importId?: number;
  data: Record<string, unknown>;
}

/** An event with its place in the feed. */
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

export interface FeedPage {
  items: FeedEvent[];
  /** The last event's cursor; with nothing new, the cursor asked for (null when none was). */
  nextCursor: string | null;
}

export interface FeedEvent {
  event: DomainEvent;
  /** `event` as JSON text, exactly `JSON.stringify(event)`: what the webhooks, NATS and the stream send. */
  json: string;
  cursor: string;
  position: FeedPosition;
  /** `<resource>:<id>`: whose events keep their order (a webhook endpoint delivers them one by one). */
  resource: string;
  /** The trace context of the request that wrote it, for its webhook attempts and NATS message to join. */
  trace?: TraceContext | undefined;
}

/** A place in the feed: after the event `(tx, seq)`. */
export interface FeedPosition {
  tx: number;
  seq: number;
}

/**
 * A row of the outbox as the feed gives it. `data` is stored as the JSON text `JSON.stringify` made of
 * it, so the event's JSON is put together around that text, and the text is parsed only if `data` is
 * read (the REST feed, a subscription): the webhook fan-out and the NATS publisher send the text without
 * parsing and serialising each event again.
 */
export function toFeedEvent(row: EventRow): FeedEvent {
  let data: Record<string, unknown> | undefined;
  const event: DomainEvent = {
    id: row.event_id,
    type: row.type as EventType,
    timestamp: row.created_at,
    ...(row.import_id === null || row.import_id === undefined ? {} : { importId: Number(row.import_id) }),
    get data() {
      return (data ??= JSON.parse(row.data) as Record<string, unknown>);
    },
  };
  const imported = event.importId === undefined ? '' : `"importId":${event.importId},`;
  let json: string | undefined;
  return {
    event,
    // Put together on first use: the REST feed and the subscriptions never read it.
    get json() {
      return (json ??= `{"id":${JSON.stringify(row.event_id)},"type":${JSON.stringify(row.type)},"timestamp":${JSON.stringify(row.created_at)},${imported}"data":${row.data}}`);
    },
    cursor: encodeEventCursor({ tx: row.tx, seq: row.seq }),
    position: { tx: row.tx, seq: row.seq },
    resource: row.resource,
    trace: row.traceparent ? { traceparent: row.traceparent, tracestate: row.tracestate ?? undefined } : undefined,
  };
}

const CURSOR_PREFIX = 'ev1.';
const BASE64URL = /^[A-Za-z0-9_-]{1,64}$/;
const EVENT_ID = /^evt_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Opaque to clients: base64url of `ev1.<tx>.<seq>`. */
export function encodeEventCursor(position: FeedPosition): string {
  return Buffer.from(`${CURSOR_PREFIX}${position.tx}.${position.seq}`, 'utf8').toString('base64url');
}

const notOurs = (field: string) =>
  AppError.validation([{ field, message: 'is not a cursor or an event id of this feed' }], 'Unknown cursor');

/** A cursor we issued, or undefined when `text` is not one (it may still be an event id). */
export function decodeEventCursor(text: string): FeedPosition | undefined {
  if (!BASE64URL.test(text)) return undefined;
  const match = /^ev1\.(\d{1,19})\.(\d{1,19})$/.exec(Buffer.from(text, 'base64url').toString('utf8'));
  if (!match) return undefined;
  const position = { tx: Number(match[1]), seq: Number(match[2]) };
  return Number.isSafeInteger(position.tx) && Number.isSafeInteger(position.seq) && position.seq >= 1
    ? position
    : undefined;
}

/** Where `after` (a cursor, or an event id looked up by `findEventId`) points; 422 when neither. */
export async function resolveAfter(
  text: string | undefined,
  field: string,
  findEventId: (eventId: string) => Promise<FeedPosition | undefined>,
): Promise<FeedPosition | undefined> {
  if (text === undefined || text === '') return undefined;
  const cursor = decodeEventCursor(text);
  if (cursor) return cursor;
  if (EVENT_ID.test(text)) {
    const position = await findEventId(text);
    if (position) return position;
  }
  throw notOurs(field);
}

/**
 * A new event's id: `evt_` and a UUIDv7 (RFC 9562), whose first 48 bits are the time in milliseconds, so
 * the unique index on `event_id` takes each new id at its right edge. A random (v4) id went to a random
 * leaf of it: on SQLite a large share of what recording an event cost a write, and on a table of a
 * week's events a page read from disk each. Their order is not the feed's.
 */
export const newEventId = () => `evt_${randomUUIDv7()}`;

/** `types`: exact types and `<resource>.*` prefixes; `*` (or nothing) is every type. */
export interface TypeFilter {
  types: string[];
  prefixes: string[];
}

/** `field` names the input in a 422 (the feed's `types`, a webhook endpoint's `events`). */
export function parseTypeFilter(text: string | undefined, field = 'types'): TypeFilter | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  const filter: TypeFilter = { types: [], prefixes: [] };
  let everyType = false;
  // Every item is checked, `*` too, so `*,foo` is refused as `foo,*` is (the documents' pattern says so).
  for (const raw of text.split(',')) {
    const item = raw.trim();
    if (item === '*') everyType = true;
    else if (item.endsWith('.*') && RESOURCES.has(item.slice(0, -2))) filter.prefixes.push(item.slice(0, -1));
    else if ((EVENT_TYPES as readonly string[]).includes(item)) filter.types.push(item);
    else
      throw AppError.validation([
        {
          field,
          message: `${JSON.stringify(item.slice(0, 100))} is not an event type or a prefix such as order.*`,
        },
      ]);
  }
  return everyType ? undefined : filter;
}

export function matchesFilter(type: string, filter: TypeFilter | undefined): boolean {
  return !filter || filter.types.includes(type) || filter.prefixes.some((prefix) => type.startsWith(prefix));
}
