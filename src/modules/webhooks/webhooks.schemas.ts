import { Type, type Static } from 'typebox';
import { Link, Named, Nullable, PageOf, PageQuery } from '../../core/http/schemas.ts';
import { HTTP_URL } from '../../core/validation/ajv.ts';
import { oneOfPattern } from '../../core/validation/comma-list-patterns.ts';
import { EVENT_SELECTORS } from '../events/event.ts';

/** REST shapes of `/webhooks`, declared once: validation, types, serialization and the OpenAPI document. */

export const MAX_URL_LENGTH = 2048;
export const MAX_DESCRIPTION_LENGTH = 500;

export const WebhookUrl = Type.String({
  minLength: 1,
  maxLength: MAX_URL_LENGTH,
  // What the service's URL check holds (webhooks.service.ts): a URL, http(s), a host, no credentials.
  format: 'uri',
  pattern: HTTP_URL,
  description: 'An http(s) URL, at most 2048 characters; in production not on a private network',
  examples: ['https://shop.example.com/hooks/content'],
});
const EventSelector = Type.String({
  minLength: 1,
  maxLength: 100,
  // The catalogue's selectors, as subscriptionFilter (webhook.ts) checks them: `foo.*` is no prefix.
  pattern: `^${oneOfPattern(EVENT_SELECTORS)}$`,
  description: 'An event type (`order.paid`), a prefix (`order.*`) or `*` (every type)',
});
export const WebhookEvents = Type.Array(EventSelector, {
  minItems: 1,
  maxItems: 100,
  description: 'The event types and prefixes delivered; default `["*"]`',
  examples: [['order.*', 'user.created']],
});
const Description = Nullable(Type.String({ maxLength: MAX_DESCRIPTION_LENGTH }));
const Status = Type.Enum(['enabled', 'disabled'], {
  description: '`disabled`: nothing is sent; pending deliveries wait (set by a `410 Gone` answer too)',
});

export const CreateWebhookInput = Type.Object(
  { url: WebhookUrl, events: Type.Optional(WebhookEvents), description: Type.Optional(Description) },
  { additionalProperties: false, description: 'A new endpoint, enabled at once' },
);
export type CreateWebhookInput = Static<typeof CreateWebhookInput>;

export const UpdateWebhookInput = Type.Object(
  {
    url: Type.Optional(WebhookUrl),
    events: Type.Optional(WebhookEvents),
    description: Type.Optional(Description),
    status: Type.Optional(Status),
  },
  { additionalProperties: false, description: 'Partial update: only the fields sent change' },
);
export type UpdateWebhookInput = Static<typeof UpdateWebhookInput>;

export const ReplayInput = Type.Object(
  {
    since: Type.String({
      maxLength: 200,
      description:
        'An ISO 8601 date-time: every kept event from then on is delivered again; or a cursor of the event feed: every event after it',
      examples: ['2026-11-24T16:00:00.000Z'],
    }),
  },
  { additionalProperties: false },
);
export type ReplayInput = Static<typeof ReplayInput>;

export const ListDeliveriesQuery = Type.Object({
  ...PageQuery,
  status: Type.Optional(Type.Enum(['pending', 'succeeded', 'dead'], { description: 'Only deliveries in this state' })),
});
export type ListDeliveriesQuery = Static<typeof ListDeliveriesQuery>;
export const ListWebhooksQuery = Type.Object({ ...PageQuery });

const endpointProperties = {
  id: Type.Integer(),
  url: Type.String(),
  events: Type.Array(Type.String()),
  description: Nullable(Type.String()),
  status: Status,
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
  _links: Type.Object({ self: Link, deliveries: Link, rotateSecret: Link, replay: Link }),
};
const Secret = Type.String({
  description: 'The signing secret (`whsec_` + base64): shown only here and in the rotation answer',
  examples: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
});

export const WebhookView = Named('WebhookEndpoint', Type.Object(endpointProperties));
export const CreatedWebhookView = Named(
  'CreatedWebhookEndpoint',
  Type.Object({ ...endpointProperties, secret: Secret }),
);
export const WebhookList = PageOf(WebhookView, 'WebhookEndpointList');
export const RotatedSecretView = Named(
  'RotatedWebhookSecret',
  Type.Object({
    secret: Secret,
    previousSecretExpiresAt: Nullable(
      Type.String({ format: 'date-time', description: 'Until then the old secret signs too (a second signature)' }),
    ),
  }),
);

export const DeliveryView = Named(
  'WebhookDelivery',
  Type.Object({
    id: Type.Integer(),
    eventId: Type.String(),
    eventType: Type.String(),
    status: Type.Enum(['pending', 'succeeded', 'dead'], {
      description: '`pending`: waiting for its first or next attempt',
    }),
    attempts: Type.Integer(),
    lastAttemptAt: Nullable(Type.String({ format: 'date-time' })),
    lastResponseStatus: Nullable(Type.Integer({ description: 'null when no HTTP answer came (timeout, refused)' })),
    nextAttemptAt: Nullable(Type.String({ format: 'date-time' })),
    _links: Type.Object({ retry: Link }),
  }),
);
export const DeliveryList = PageOf(DeliveryView, 'WebhookDeliveryList');
export const QueuedView = Named(
  'WebhookReplayQueued',
  Type.Object({ queued: Type.Integer({ description: 'Deliveries queued by the replay' }) }),
);
