import type { Db } from '../../core/db/database.ts';
import type { TraceContext } from '../../core/tracing/tracing.ts';
import type { FeedEvent } from '../events/event.ts';
import * as deliveries from './deliveries.repository.ts';
import { subscribedAt, toSigningEndpoint, type SigningEndpoint } from './webhook.ts';
import * as endpoints from './webhooks.repository.ts';
import type { NewWebhookDeliveryRow, WebhookDeliveryRow, WebhookEndpointRow } from './webhooks.table.ts';

/** The fan-out: an outbox batch into deliveries, some of them claimed at once for this process's worker. */

/** Rows per insert statement (SQLite allows 32766 bound values). */
const INSERT_CHUNK = 500;

/** A claimed delivery with the endpoint it goes to. */
export interface ClaimedDelivery {
  row: WebhookDeliveryRow;
  endpoint: SigningEndpoint;
  /** The event JSON to send: the fan-out's, read from the outbox at the claim, or the copy a dead delivery keeps. */
  payload: string;
  /** When its event committed (ms), when known without reading the payload. */
  committed?: number;
  /** The trace of the request that wrote its event (DECISIONS §17): the attempt's span joins it. */
  trace?: TraceContext | undefined;
}

/** What a delivery worker may take now: at most `limit`, and per endpoint its room (unlisted: `perEndpoint`). */
export interface ClaimRoom {
  holder: string;
  limit: number;
  room: ReadonlyMap<number, number>;
  perEndpoint: number;
}

/** What a fan-out batch made: deliveries, those claimed for the worker, those left to a claim, endpoints it looked at. */
export interface FanOutDone {
  made: number;
  claimed: ClaimedDelivery[];
  left: number;
  targets: number;
}

const ms = (iso: string) => Date.parse(iso);

export function toDeliveryRow(endpointId: number, item: FeedEvent, at: string): NewWebhookDeliveryRow {
  return {
    endpoint_id: endpointId,
    event_tx: item.position.tx,
    event_seq: item.position.seq,
    event_id: item.event.id,
    event_type: item.event.type,
    resource: item.resource,
    status: 'pending',
    attempts: 0,
    last_attempt_at: null,
    last_response_status: null,
    last_error: null,
    next_attempt_at: at,
    claimed_by: null,
    claimed_until: null,
    created_at: at,
  };
}

/**
 * One delivery per (event, endpoint it is for), in the consume handler's transaction: they commit with
 * the consumer's move. With `claim` (this process's delivery worker and its room), the deliveries that
 * are the head of their line (no pending delivery of the same endpoint and resource before them) of
 * an enabled endpoint with room are inserted already claimed by it, and returned to be sent: no claim
 * transaction between the fan-out and the request. The rest wait for a claim as before.
 */
export async function fanOutBatch(
  trx: Db,
  batch: FeedEvent[],
  claim: ClaimRoom | undefined,
  leaseMs: number,
): Promise<FanOutDone> {
  const oldest = batch.reduce(
    (min, item) => (item.event.timestamp < min ? item.event.timestamp : min),
    batch[0]!.event.timestamp,
  );
  const found = await endpoints.findFanOutEndpoints(trx, oldest);
  const targets = found.map((row) => ({ row, receives: subscribedAt(row) }));
  const nowMs = Date.now();
  const at = new Date(nowMs).toISOString();
  const rows = batch.flatMap((item) => {
    const committed = ms(item.event.timestamp);
    return targets
      .filter((target) => target.receives(item.event.type, committed))
      .map((target) => toDeliveryRow(target.row.id, item, at));
  });
  const claimedRows = claim
    ? await claimAtFanOut(trx, rows, found, claim, nowMs + leaseMs)
    : new Set<NewWebhookDeliveryRow>();
  const inserted: Array<{ id: number; endpoint_id: number; event_id: string }> = [];
  for (let i = 0; i < rows.length; i += INSERT_CHUNK)
    inserted.push(...(await deliveries.insertDeliveries(trx, rows.slice(i, i + INSERT_CHUNK))));
  if (claimedRows.size === 0) return { made: rows.length, claimed: [], left: rows.length, targets: found.length };
  const ids = new Map(inserted.map((row) => [`${row.endpoint_id} ${row.event_id}`, Number(row.id)]));
  const byId = new Map(found.map((row) => [row.id, toSigningEndpoint(row, at)]));
  const eventOf = new Map(batch.map((item) => [item.event.id, item]));
  const claimed = [...claimedRows].flatMap((row): ClaimedDelivery[] => {
    const id = ids.get(`${row.endpoint_id} ${row.event_id}`);
    // A pair that was there already (a fan-out run twice) is not this one: not claimed here.
    if (id === undefined) return [];
    const endpoint = byId.get(row.endpoint_id)!;
    const item = eventOf.get(row.event_id)!;
    return [
      {
        row: { ...row, id, payload: null } as WebhookDeliveryRow,
        endpoint,
        payload: item.json,
        committed: ms(item.event.timestamp),
        trace: item.trace,
      },
    ];
  });
  return { made: rows.length, claimed, left: rows.length - claimed.length, targets: found.length };
}

/** Marks the fan-out's rows that `claim` takes (see `fanOutBatch`); returns them. */
async function claimAtFanOut(
  trx: Db,
  rows: NewWebhookDeliveryRow[],
  found: WebhookEndpointRow[],
  claim: ClaimRoom,
  leaseUntilMs: number,
): Promise<Set<NewWebhookDeliveryRow>> {
  const enabled = new Set(found.filter((row) => row.status === 'enabled').map((row) => row.id));
  const lines = new Set(
    (await deliveries.findPendingLines(trx, [...enabled], [...new Set(rows.map((row) => row.resource))])).map(
      (line) => `${line.endpoint_id} ${line.resource}`,
    ),
  );
  const room = new Map(claim.room);
  const claimed = new Set<NewWebhookDeliveryRow>();
  const leaseUntil = new Date(leaseUntilMs).toISOString();
  for (const row of rows) {
    const line = `${row.endpoint_id} ${row.resource}`;
    const left = room.get(row.endpoint_id) ?? claim.perEndpoint;
    if (claimed.size < claim.limit && enabled.has(row.endpoint_id) && !lines.has(line) && left > 0) {
      row.claimed_by = claim.holder;
      row.claimed_until = leaseUntil;
      room.set(row.endpoint_id, left - 1);
      claimed.add(row);
    }
    // Whatever comes later in this line waits behind this one.
    lines.add(line);
  }
  return claimed;
}
