import { randomBytes } from 'node:crypto';
import { matchesFilter, parseTypeFilter, type TypeFilter } from '../events/event.ts';
import type { WebhookDeliveryRow, WebhookEndpointRow } from './webhooks.table.ts';

export type EndpointStatus = 'enabled' | 'disabled';
export type DeliveryStatus = 'pending' | 'succeeded' | 'dead';

export interface WebhookEndpoint {
  id: number;
  url: string;
  /** Types and `<resource>.*` prefixes; `["*"]` is every type. */
  events: string[];
  description: string | null;
  status: EndpointStatus;
  createdAt: string;
  updatedAt: string;
}

/** An endpoint with what signs its deliveries: the secret, and the previous one while it overlaps. */
export interface SigningEndpoint extends WebhookEndpoint {
  secrets: string[];
}

export interface WebhookDelivery {
  id: number;
  endpointId: number;
  eventId: string;
  eventType: string;
  status: DeliveryStatus;
  attempts: number;
  lastAttemptAt: string | null;
  lastResponseStatus: number | null;
  nextAttemptAt: string | null;
}

export function toEndpoint(row: WebhookEndpointRow): WebhookEndpoint {
  return {
    id: row.id,
    url: row.url,
    events: JSON.parse(row.events) as string[],
    description: row.description,
    status: row.status,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The secrets that sign a delivery sent at `at`: the current one, and the previous one until its overlap ends. */
export function toSigningEndpoint(row: WebhookEndpointRow, at: string): SigningEndpoint {
  const overlapping =
    row.previous_secret !== null && row.previous_secret_until !== null && row.previous_secret_until > at;
  return { ...toEndpoint(row), secrets: overlapping ? [row.secret, row.previous_secret!] : [row.secret] };
}

export function toDelivery(row: WebhookDeliveryRow): WebhookDelivery {
  return {
    id: Number(row.id),
    endpointId: row.endpoint_id,
    eventId: row.event_id,
    eventType: row.event_type,
    status: row.status,
    attempts: row.attempts,
    lastAttemptAt: row.last_attempt_at,
    lastResponseStatus: row.last_response_status,
    nextAttemptAt: row.next_attempt_at,
  };
}

/** A Standard Webhooks secret: `whsec_` + base64 of 32 random bytes (the specification allows 24 to 64). */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** The endpoint's `events` as the feed's filter (undefined: every type); 422 naming `events` for an unknown one. */
export function subscriptionFilter(events: readonly string[]): TypeFilter | undefined {
  return parseTypeFilter(events.join(','), 'events');
}

/** What an endpoint was subscribed to until `until` (an entry of `webhook_endpoints.history`). */
export interface SubscriptionPast {
  until: string;
  enabled: boolean;
  events: string[];
}

/** Past subscriptions kept per endpoint: far more changes than any fan-out lag could span. */
const HISTORY_KEPT = 50;

/**
 * The endpoint's `history` after a change at `at` from `before` (its row before the change), or
 * undefined when neither `status` nor `events` changes.
 */
export function historyAfterChange(
  before: WebhookEndpointRow,
  after: { status: EndpointStatus; events: string },
  at: string,
): string | undefined {
  if (after.status === before.status && after.events === before.events) return undefined;
  const history = JSON.parse(before.history) as SubscriptionPast[];
  history.push({ until: at, enabled: before.status === 'enabled', events: JSON.parse(before.events) as string[] });
  return JSON.stringify(history.slice(-HISTORY_KEPT));
}

/**
 * For the fan-out: whether an event of `type` committed at `atMs` is the endpoint's. It is when the
 * endpoint existed, was enabled and was subscribed to `type` then: by the first past subscription that
 * lasted beyond `atMs`, else by the current one. (Parsed once per endpoint, asked once per event.)
 */
export function subscribedAt(row: WebhookEndpointRow): (type: string, atMs: number) => boolean {
  const createdMs = Date.parse(row.created_at);
  const states = [
    ...(JSON.parse(row.history) as SubscriptionPast[]).map((entry) => ({
      untilMs: Date.parse(entry.until),
      enabled: entry.enabled,
      filter: subscriptionFilter(entry.events),
    })),
    {
      untilMs: Infinity,
      enabled: row.status === 'enabled',
      filter: subscriptionFilter(JSON.parse(row.events) as string[]),
    },
  ];
  return (type, atMs) => {
    if (createdMs > atMs) return false;
    const state = states.find((entry) => entry.untilMs > atMs)!;
    return state.enabled && matchesFilter(type, state.filter);
  };
}
