import { dialectOf, type Db } from '../../core/db/database.ts';
import type { PageWindow } from '../../core/pagination.ts';
import type { NewWebhookEndpointRow, WebhookEndpointChanges, WebhookEndpointRow } from './webhooks.table.ts';
import { historyAfterChange } from './webhook.ts';

/** All SQL of webhook endpoints. */

export function insertEndpoint(db: Db, row: NewWebhookEndpointRow): Promise<WebhookEndpointRow> {
  return db.insertInto('webhook_endpoints').values(row).returningAll().executeTakeFirstOrThrow();
}

export function findEndpoint(db: Db, id: number): Promise<WebhookEndpointRow | undefined> {
  return db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The row locked for a change (PostgreSQL: `FOR UPDATE`; SQLite serialises writers anyway). */
export function findEndpointForUpdate(trx: Db, id: number): Promise<WebhookEndpointRow | undefined> {
  const query = trx.selectFrom('webhook_endpoints').selectAll().where('id', '=', id);
  return (dialectOf(trx) === 'postgres' ? query.forUpdate() : query).executeTakeFirst();
}

export function listEndpoints(db: Db, window: PageWindow): Promise<WebhookEndpointRow[]> {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .orderBy('id')
    .limit(window.limit)
    .offset(window.offset)
    .execute();
}

export async function countEndpoints(db: Db): Promise<number> {
  const row = await db
    .selectFrom('webhook_endpoints')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export function updateEndpoint(
  db: Db,
  id: number,
  changes: Omit<WebhookEndpointChanges, 'id' | 'created_at'>,
): Promise<WebhookEndpointRow | undefined> {
  return db.updateTable('webhook_endpoints').set(changes).where('id', '=', id).returningAll().executeTakeFirst();
}

export async function deleteEndpoint(db: Db, id: number): Promise<boolean> {
  const result = await db.deleteFrom('webhook_endpoints').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

/**
 * The endpoints an event committed at `since` or later may go to: enabled now, or disabled after it
 * (an event that committed while the endpoint was enabled is still its own). Created no later than
 * the batch's newest event; the fan-out checks each event's time.
 */
export function findFanOutEndpoints(db: Db, since: string): Promise<WebhookEndpointRow[]> {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where((eb) => eb.or([eb('status', '=', 'enabled'), eb('disabled_at', '>', since)]))
    .orderBy('id')
    .execute();
}

export function findEndpointsByIds(db: Db, ids: readonly number[]): Promise<WebhookEndpointRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db.selectFrom('webhook_endpoints').selectAll().where('id', 'in', ids).execute();
}

/**
 * 410 Gone: the endpoint is disabled (only if still enabled, so a later re-enable is not undone by a
 * stale answer), its subscription until now kept in its history.
 */
export async function disableEndpoint(trx: Db, id: number, at: string): Promise<void> {
  const current = await findEndpointForUpdate(trx, id);
  if (current?.status !== 'enabled') return;
  const history = historyAfterChange(current, { status: 'disabled', events: current.events }, at);
  await trx
    .updateTable('webhook_endpoints')
    .set({ status: 'disabled', disabled_at: at, updated_at: at, ...(history !== undefined && { history }) })
    .where('id', '=', id)
    .where('status', '=', 'enabled')
    .execute();
}
