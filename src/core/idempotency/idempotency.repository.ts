import type { Db } from '../db/database.ts';

/** All SQL of the idempotency keys. A row with `status_code` 0 is a claim whose response is not stored yet. */

export const IN_PROGRESS = 0;

export interface KeyRef {
  scope: string;
  key: string;
}

export interface StoredKey {
  requestHash: string;
  statusCode: number;
  responseBody: string;
}

/** Forgets a key older than the retention window, so the same key can be used afresh. */
export async function deleteExpiredKey(db: Db, ref: KeyRef, cutoff: string): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('scope', '=', ref.scope)
    .where('key', '=', ref.key)
    .where('created_at', '<', cutoff)
    .execute();
}

/** Inserts the claim; the primary key decides between concurrent requests. True when this caller won. */
export async function insertClaim(db: Db, ref: KeyRef, requestHash: string, createdAt: string): Promise<boolean> {
  const result = await db
    .insertInto('idempotency_keys')
    .values({ ...ref, request_hash: requestHash, status_code: IN_PROGRESS, response_body: '', created_at: createdAt })
    .onConflict((oc) => oc.columns(['scope', 'key']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
}

export async function findKey(db: Db, ref: KeyRef): Promise<StoredKey | undefined> {
  const row = await db
    .selectFrom('idempotency_keys')
    .select(['request_hash', 'status_code', 'response_body'])
    .where('scope', '=', ref.scope)
    .where('key', '=', ref.key)
    .executeTakeFirst();
  return row && { requestHash: row.request_hash, statusCode: row.status_code, responseBody: row.response_body };
}

export async function storeResponse(db: Db, ref: KeyRef, statusCode: number, responseBody: string): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({ status_code: statusCode, response_body: responseBody })
    .where('scope', '=', ref.scope)
    .where('key', '=', ref.key)
    .execute();
}

/** Drops an unfinished claim (the request failed and changed nothing), so a retry may act. */
export async function releaseClaim(db: Db, ref: KeyRef): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('scope', '=', ref.scope)
    .where('key', '=', ref.key)
    .where('status_code', '=', IN_PROGRESS)
    .execute();
}

export async function deleteKeysCreatedBefore(db: Db, cutoff: string): Promise<number> {
  const result = await db.deleteFrom('idempotency_keys').where('created_at', '<', cutoff).executeTakeFirst();
  return Number(result.numDeletedRows);
}
