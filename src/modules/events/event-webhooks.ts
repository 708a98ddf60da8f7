import { EVENT_TYPES, type EventType } from './event.ts';
import { EventOfType, pascalCaseOf, type EventPayloadTable } from './event-payloads.ts';

/*
 * The OpenAPI 3.1 `webhooks` of the documents (DECISIONS §10): one per event type, the request a
 * webhook endpoint receives, so a client generated from the document can type its receiver.
 */

const header = (name: string, description: string, schema: object) => ({
  name,
  in: 'header',
  required: true,
  description,
  schema,
});

/** Standard Webhooks' headers, the same on every event. */
const HEADERS = [
  header('webhook-id', "The event's id, the same on every attempt: drop a delivery whose id you have handled", {
    type: 'string',
  }),
  header(
    'webhook-timestamp',
    "The attempt's time in Unix seconds: it is signed, so refuse one far from your clock (a replay)",
    { type: 'string', pattern: '^[0-9]+$' },
  ),
  header(
    'webhook-signature',
    '`v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}" keyed by the decoded bytes of the endpoint\'s secret>`; two, space-separated, while a rotated secret still signs (Standard Webhooks)',
    { type: 'string' },
  ),
];

const RESPONSES = {
  '2XX': { description: 'Received: the delivery succeeded (the body is ignored)' },
  '410': {
    description:
      "Gone: the endpoint's status becomes `disabled`; its pending deliveries wait until it is enabled again",
  },
  default: {
    description:
      'Anything else (also a 3xx, which is not followed, a timeout or a refused connection) is retried on `WEBHOOK_RETRY_SCHEDULE`, no earlier than a `Retry-After` on 429 or 503; after the last attempt the delivery is `dead`',
  },
};

function webhookOf(type: EventType, payloads: EventPayloadTable) {
  const name = pascalCaseOf(type);
  return {
    post: {
      operationId: `${name[0]!.toLowerCase()}${name.slice(1)}Webhook`,
      summary: `${type} event`,
      description: `Sent to each enabled webhook endpoint subscribed to \`${type}\` (\`/api/webhooks\`): the event as the feed shows it, signed.`,
      // The receiver authenticates the sender by the signature, not by a token of the service.
      security: [],
      parameters: HEADERS,
      requestBody: {
        required: true,
        content: { 'application/json': { schema: EventOfType(type, payloads[type]) } },
      },
      responses: RESPONSES,
    },
  };
}

/** Every type's webhook, in the catalogue's order. */
export function eventWebhooks(payloads: EventPayloadTable): Record<EventType, object> {
  return Object.fromEntries(EVENT_TYPES.map((type) => [type, webhookOf(type, payloads)])) as Record<EventType, object>;
}
