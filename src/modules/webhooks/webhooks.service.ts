import { requireAdmin } from '../../core/access/guards.ts';
import type { Principal } from '../../core/access/principal.ts';
import { now } from '../../core/clock.ts';
import type { Db } from '../../core/db/database.ts';
import { inTransaction } from '../../core/db/transaction.ts';
import { AppError } from '../../core/errors/app-error.ts';
import { readPage, type Page, type PageRequest } from '../../core/pagination.ts';
import type { Precondition } from '../../core/precondition.ts';
import { decodeEventCursor, type FeedPosition } from '../events/event.ts';
import type { EventsService } from '../events/events.service.ts';
import * as deliveries from './deliveries.repository.ts';
import { toDeliveryRow } from './deliveries.service.ts';
import type { UrlGuard } from './url-guard.ts';
import {
  historyAfterChange,
  newWebhookSecret,
  subscriptionFilter,
  toDelivery,
  toEndpoint,
  type DeliveryStatus,
  type WebhookDelivery,
  type WebhookEndpoint,
} from './webhook.ts';
import * as repo from './webhooks.repository.ts';
import {
  MAX_DESCRIPTION_LENGTH,
  MAX_URL_LENGTH,
  type CreateWebhookInput,
  type UpdateWebhookInput,
} from './webhooks.schemas.ts';

export const WEBHOOK_PAGE_RULES = { defaultLimit: 20, maxLimit: 100 };
const REPLAY_PAGE = 1000;
/** Deliveries a replay makes pending before it renews the deliveries' statistics (then at each tenfold). */
const STATISTICS_RENEWED_AT = 1000;

export interface WebhooksOptions {
  /** WEBHOOK_SECRET_OVERLAP_HOURS: how long a rotated-out secret still signs. */
  secretOverlapHours: number;
}

const notFound = (id: number) => AppError.notFound(`Webhook endpoint ${id}`);

/** The URL rules (the schema says them too; checked here so that every caller gets them). */
async function checkUrl(guard: UrlGuard, url: string): Promise<void> {
  const invalid = (message: string) => AppError.validation([{ field: 'url', message }]);
  if (url.length > MAX_URL_LENGTH) throw invalid(`must be at most ${MAX_URL_LENGTH} characters`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalid('is not a valid URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw invalid('must be an http or https URL');
  if (parsed.hostname === '') throw invalid('has no host');
  if (parsed.username || parsed.password) throw invalid('may not carry credentials');
  await guard.assertAllowedUrl(url);
}

function checkDescription(description: string | null | undefined): void {
  if (description && description.length > MAX_DESCRIPTION_LENGTH)
    throw AppError.validation([
      { field: 'description', message: `must be at most ${MAX_DESCRIPTION_LENGTH} characters` },
    ]);
}

/** `since`: an ISO date-time (events from then on) or a feed cursor (events after it); else 422 naming it. */
function replayStart(since: string): { after: FeedPosition | undefined; from: string | undefined } {
  const cursor = decodeEventCursor(since);
  if (cursor) return { after: cursor, from: undefined };
  const time = /^\d{4}-\d{2}-\d{2}T/.test(since) ? Date.parse(since) : NaN;
  if (Number.isNaN(time))
    throw AppError.validation([
      { field: 'since', message: 'is not an ISO 8601 date-time or a cursor of the event feed' },
    ]);
  return { after: undefined, from: new Date(time).toISOString() };
}

/** Admin management of endpoints and their delivery log; every call is admin only. */
export function createWebhooksService(db: Db, events: EventsService, guard: UrlGuard, options: WebhooksOptions) {
  /** Told when deliveries are queued here (a retry, a replay): the delivery worker looks at once. */
  let queued = () => {};

  async function findOrFail(id: number) {
    const row = await repo.findEndpoint(db, id);
    if (!row) throw notFound(id);
    return row;
  }

  return {
    onDeliveriesQueued(listener: () => void): void {
      queued = listener;
    },

    /** A new endpoint with its secret (the only time the secret is shown besides a rotation). */
    async createEndpoint(
      actor: Principal | null,
      input: CreateWebhookInput,
    ): Promise<WebhookEndpoint & { secret: string }> {
      requireAdmin(actor);
      const events = input.events ?? ['*'];
      subscriptionFilter(events);
      checkDescription(input.description);
      await checkUrl(guard, input.url);
      const at = now();
      const secret = newWebhookSecret();
      const row = await repo.insertEndpoint(db, {
        url: input.url,
        events: JSON.stringify(events),
        description: input.description ?? null,
        status: 'enabled',
        secret,
        previous_secret: null,
        previous_secret_until: null,
        disabled_at: null,
        created_at: at,
        updated_at: at,
      });
      return { ...toEndpoint(row), secret };
    },

    async listEndpoints(actor: Principal | null, request: PageRequest): Promise<Page<WebhookEndpoint>> {
      requireAdmin(actor);
      return readPage(
        request,
        WEBHOOK_PAGE_RULES,
        { rows: (window) => repo.listEndpoints(db, window), total: () => repo.countEndpoints(db) },
        toEndpoint,
      );
    },

    async getEndpoint(actor: Principal | null, id: number): Promise<WebhookEndpoint> {
      requireAdmin(actor);
      return toEndpoint(await findOrFail(id));
    },

    /** Re-enabling lets the waiting deliveries go on; an empty change changes nothing (not even `updatedAt`). */
    async updateEndpoint(
      actor: Principal | null,
      id: number,
      input: UpdateWebhookInput,
      precondition?: Precondition<WebhookEndpoint>,
    ): Promise<WebhookEndpoint> {
      requireAdmin(actor);
      if (input.events) subscriptionFilter(input.events);
      checkDescription(input.description);
      if (input.url !== undefined) await checkUrl(guard, input.url);
      const endpoint = await db.transaction().execute(async (trx) => {
        const current = await repo.findEndpointForUpdate(trx, id);
        if (!current) throw notFound(id);
        precondition?.(toEndpoint(current));
        if (Object.keys(input).length === 0) return toEndpoint(current);
        const at = now();
        const disabling = input.status === 'disabled' && current.status === 'enabled';
        const history = historyAfterChange(
          current,
          {
            status: input.status ?? current.status,
            events: input.events !== undefined ? JSON.stringify(input.events) : current.events,
          },
          at,
        );
        const row = await repo.updateEndpoint(trx, id, {
          ...(history !== undefined && { history }),
          ...(input.url !== undefined && { url: input.url }),
          ...(input.events !== undefined && { events: JSON.stringify(input.events) }),
          ...(input.description !== undefined && { description: input.description }),
          ...(input.status !== undefined && { status: input.status }),
          ...(disabling && { disabled_at: at }),
          updated_at: at,
        });
        return toEndpoint(row!);
      });
      if (endpoint.status === 'enabled') queued();
      return endpoint;
    },

    async deleteEndpoint(
      actor: Principal | null,
      id: number,
      precondition?: Precondition<WebhookEndpoint>,
    ): Promise<void> {
      requireAdmin(actor);
      await db.transaction().execute(async (trx) => {
        const current = await repo.findEndpointForUpdate(trx, id);
        if (!current) throw notFound(id);
        precondition?.(toEndpoint(current));
        await repo.deleteEndpoint(trx, id);
      });
    },

    /** A new secret; the old one signs too for the overlap (two signatures), then stops. */
    async rotateSecret(
      actor: Principal | null,
      id: number,
    ): Promise<{ secret: string; previousSecretExpiresAt: string | null }> {
      requireAdmin(actor);
      const current = await findOrFail(id);
      const secret = newWebhookSecret();
      const until =
        options.secretOverlapHours > 0
          ? new Date(Date.now() + options.secretOverlapHours * 3_600_000).toISOString()
          : null;
      const row = await repo.updateEndpoint(db, id, {
        secret,
        previous_secret: until ? current.secret : null,
        previous_secret_until: until,
        updated_at: now(),
      });
      if (!row) throw notFound(id);
      return { secret, previousSecretExpiresAt: until };
    },

    async listDeliveries(
      actor: Principal | null,
      id: number,
      request: PageRequest & { status?: DeliveryStatus | undefined },
    ): Promise<Page<WebhookDelivery>> {
      requireAdmin(actor);
      await findOrFail(id);
      return readPage(
        request,
        WEBHOOK_PAGE_RULES,
        {
          rows: (window) => deliveries.listDeliveries(db, id, request.status, window),
          total: () => deliveries.countDeliveries(db, id, request.status),
        },
        toDelivery,
      );
    },

    /** Pending again and due now (whatever its state), with a fresh retry schedule. */
    async retryDelivery(actor: Principal | null, id: number, deliveryId: number): Promise<WebhookDelivery> {
      requireAdmin(actor);
      const current = await deliveries.findDelivery(db, id, deliveryId);
      if (!current) throw AppError.notFound(`Delivery ${deliveryId} of webhook endpoint ${id}`);
      const row = await deliveries.retryDelivery(db, deliveryId, now());
      if (!row)
        throw AppError.conflict(
          `Delivery ${deliveryId} cannot be retried: it kept no copy of its event, and the event is no longer kept`,
        );
      queued();
      return toDelivery(row);
    },

    /** Every kept event since `since` that the endpoint subscribes to is delivered again; how many were queued. */
    async replay(actor: Principal | null, id: number, since: string): Promise<number> {
      requireAdmin(actor);
      const start = replayStart(since);
      const endpoint = await findOrFail(id);
      const filter = subscriptionFilter(JSON.parse(endpoint.events) as string[]);
      let after = start.after;
      let count = 0;
      let renewAt = STATISTICS_RENEWED_AT;
      for (;;) {
        const page = await events.readFeed({ after, limit: REPLAY_PAGE, filter });
        if (page.length === 0) break;
        const at = now();
        const wanted = page.filter((item) => start.from === undefined || item.event.timestamp >= start.from);
        // The upsert locks the rows in feed order, a claim's success update in its own: PostgreSQL may
        // abort one side as a deadlock, and the aborted page is run again.
        const rows = wanted.map((item) => toDeliveryRow(id, item, at));
        count += await inTransaction(db, (trx) => deliveries.upsertReplayed(trx, rows));
        // Autovacuum renews the statistics up to a minute later (migration 0018): until then the worker's
        // claims are planned as if pending deliveries were rare, and they took seconds each. Renewed at
        // the first thousand made pending, and at each tenfold since.
        if (count >= renewAt) {
          await deliveries.renewStatistics(db);
          renewAt = count * 10;
        }
        after = page.at(-1)!.position;
      }
      queued();
      return count;
    },
  };
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;
