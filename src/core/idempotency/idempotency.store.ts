import { hash } from 'node:crypto';
import type { Db } from '../db/database.ts';
import { AppError } from '../errors/app-error.ts';
import * as repo from './idempotency.repository.ts';

/** How long a key is remembered: the same key and body within this window replays the first response. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
const PURGE_EVERY_MS = 60 * 60 * 1000;

export interface IdempotentRequest {
  /** Who is asking and where (caller + method + route): the same key means nothing across scopes. */
  scope: string;
  key: string;
  /** Everything that makes two requests "the same": the concrete path and the body. */
  fingerprint: unknown;
}

/** A response as stored and replayed: status, the headers worth replaying, and the JSON body. */
export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

export interface IdempotentOutcome extends StoredResponse {
  replayed: boolean;
}

/** JSON with object keys sorted, so `{"a":1,"b":2}` and `{"b":2,"a":1}` are the same request. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/**
 * Idempotency keys kept in the database, so they hold across restarts and instances. The key is
 * claimed first (an insert the primary key decides), the work runs, then its response is stored.
 * A concurrent request that finds the claim unfinished gets 409 CONFLICT rather than acting twice.
 * Only successful responses are stored: a failed request changed nothing (its transaction rolled
 * back), so its claim is released and a retry with the same key acts afresh.
 */
export function createIdempotencyStore(db: Db, ttlMs = IDEMPOTENCY_TTL_MS) {
  let lastPurge = 0;

  return {
    async run(request: IdempotentRequest, work: () => Promise<StoredResponse>): Promise<IdempotentOutcome> {
      const ref = { scope: request.scope, key: request.key };
      const requestHash = hash('sha256', canonicalJson(request.fingerprint), 'hex');
      const createdAt = new Date();
      const cutoff = new Date(createdAt.getTime() - ttlMs).toISOString();
      // Expired keys are ignored anyway; deleting them now and then (an indexed range) keeps the table small.
      if (createdAt.getTime() - lastPurge > PURGE_EVERY_MS) {
        lastPurge = createdAt.getTime();
        await repo.deleteKeysCreatedBefore(db, cutoff);
      } else {
        await repo.deleteExpiredKey(db, ref, cutoff);
      }

      if (!(await repo.insertClaim(db, ref, requestHash, createdAt.toISOString()))) {
        const stored = await repo.findKey(db, ref);
        // Gone between our insert and read: its claim was released; the caller may simply retry.
        if (!stored) throw AppError.conflict('A request with this Idempotency-Key has just failed; retry');
        if (stored.requestHash !== requestHash) {
          throw new AppError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used with a different request', {
            details: [{ field: 'Idempotency-Key', message: 'was already used with a different request body or path' }],
          });
        }
        if (stored.statusCode === repo.IN_PROGRESS) {
          throw AppError.conflict('A request with this Idempotency-Key is still in progress');
        }
        return { ...(JSON.parse(stored.responseBody) as StoredResponse), replayed: true };
      }

      let response: StoredResponse;
      try {
        response = await work();
      } catch (error) {
        await repo.releaseClaim(db, ref);
        throw error;
      }
      await repo.storeResponse(db, ref, response.status, JSON.stringify(response));
      return { ...response, replayed: false };
    },
  };
}

export type IdempotencyStore = ReturnType<typeof createIdempotencyStore>;
