import { Type } from 'typebox';
import { Named, Nullable } from '../../core/http/schemas.ts';
import { commaListPattern, oneOfPattern } from '../../core/validation/comma-list-patterns.ts';
import { EVENT_SELECTORS, EVENT_TYPES } from './event.ts';

const After = Type.String({
  maxLength: 200,
  description:
    'Start right after this event: a cursor (`nextCursor`, an SSE `id`) or an event id. Absent: from the oldest event kept',
});
const Limit = Type.Integer({
  minimum: 1,
  maximum: 1000,
  description: 'Events per page (per read of the stream), default 100, at most 1000',
});
const Types = Type.String({
  maxLength: 2000,
  description: 'Comma-separated event types or prefixes (`order.*`); `*` or absent: every type',
  pattern: commaListPattern(oneOfPattern(EVENT_SELECTORS), { empty: true }),
  examples: ['order.*,user.created'],
});

export const ListEventsQuery = Type.Object({
  after: Type.Optional(After),
  limit: Type.Optional(Limit),
  types: Type.Optional(Types),
});
export const EventStreamQuery = ListEventsQuery;

/** The envelope's fields, shared by the feed's `Event` and each webhook's body (event-payloads.ts). */
export const EventId = Type.String({
  description: "Unique for the service's whole life; the same wherever the event appears (use it to drop duplicates)",
  examples: ['evt_0b8f6a9e-3f55-4a0c-9d0e-0d1c2f3a4b5c'],
});
export const EventTimestamp = Type.String({
  format: 'date-time',
  description: 'When the change was made (ISO 8601 UTC, milliseconds)',
});
export const EventImportId = Type.Optional(
  Type.Integer({
    description:
      "Present only on the event of a row written by an import (`/api/v2/imports/{id}`, DECISIONS §18): that import's id",
  }),
);

export const EventView = Named(
  'Event',
  Type.Object({
    id: EventId,
    type: Type.Enum([...EVENT_TYPES], { description: '`<resource>.<past tense>`' }),
    timestamp: EventTimestamp,
    importId: EventImportId,
    data: Type.Object(
      {},
      {
        additionalProperties: true,
        description:
          "The resource as an admin's `GET /api/v2/...` shows it right after the change (`_links` included); for `*.deleted`, its id (and a comment's post, a like's comment and user)",
      },
    ),
  }),
);

export const EventFeed = Named(
  'EventFeed',
  Type.Object({
    data: Type.Array(EventView),
    nextCursor: Nullable(
      Type.String({
        description:
          "Pass as `after` to read on: the last event's cursor, or with nothing new the cursor given (null when none was)",
      }),
    ),
  }),
);

export const EventStreamBody = Type.String({
  description:
    'Server-Sent Events: each message has `id` (its cursor), `event` (its type) and `data` (the event JSON); a `: heartbeat` comment at least every 15 s',
  examples: [
    'id: ZXYxLjAuMQ\nevent: user.created\ndata: {"id":"evt_…","type":"user.created","timestamp":"2026-11-24T16:00:00.000Z","data":{"id":2}}\n\n',
  ],
});
