import type { Generated, Insertable, Selectable, Updateable } from 'kysely';
import type { Timestamp } from '../../core/db/tables.ts';

/**
 * A webhook endpoint. `events` is a JSON list of types and `<resource>.*` prefixes (`["*"]`: all).
 * `secret` signs every delivery; after a rotation `previous_secret` signs too until
 * `previous_secret_until`. `disabled_at` is when it was last disabled. `history` (JSON) holds the
 * subscriptions it had before its latest changes (`SubscriptionPast[]`, oldest first), so the fan-out
 * gives an event to the endpoint as it was when the event committed, not as it is when it fans out.
 */
export interface WebhookEndpointsTable {
  id: Generated<number>;
  url: string;
  events: string;
  description: string | null;
  status: 'enabled' | 'disabled';
  secret: string;
  previous_secret: string | null;
  previous_secret_until: Timestamp | null;
  disabled_at: Timestamp | null;
  history: Generated<string>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/**
 * One event for one endpoint: `pending` until it succeeds or runs out of attempts (`dead`). The event's
 * place in the feed (`event_tx`, `event_seq`) orders the deliveries of one resource; `payload` is the
 * event JSON as sent. A worker holds a delivery it is sending (`claimed_by` until `claimed_until`).
 */
export interface WebhookDeliveriesTable {
  id: Generated<number>;
  endpoint_id: number;
  event_tx: number;
  event_seq: number;
  event_id: string;
  event_type: string;
  resource: string;
  payload: string | null;
  status: 'pending' | 'succeeded' | 'dead';
  attempts: number;
  last_attempt_at: Timestamp | null;
  last_response_status: number | null;
  /** Why the last attempt failed when no HTTP status says it (a timeout, a refused address). */
  last_error: string | null;
  next_attempt_at: Timestamp | null;
  claimed_by: string | null;
  claimed_until: Timestamp | null;
  created_at: Timestamp;
}

declare module '../../core/db/tables.ts' {
  interface Tables {
    webhook_endpoints: WebhookEndpointsTable;
    webhook_deliveries: WebhookDeliveriesTable;
  }
}

export type WebhookEndpointRow = Selectable<WebhookEndpointsTable>;
export type NewWebhookEndpointRow = Insertable<WebhookEndpointsTable>;
export type WebhookDeliveryRow = Selectable<WebhookDeliveriesTable>;
export type NewWebhookDeliveryRow = Insertable<WebhookDeliveriesTable>;
export type WebhookEndpointChanges = Updateable<WebhookEndpointsTable>;
