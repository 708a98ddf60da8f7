import assert from 'node:assert/strict';
import { sql } from 'kysely';
import type { Db } from '../../src/core/db/database.ts';
import { checkContract } from '../support/openapi-validator.ts';
import type { TestServer } from '../support/test-server.ts';
import { SECURITY_TEST_ENV } from './security-test-env.test-support.ts';

/** Fixed, so a failure replays exactly; fast-check prints it with the counterexample. Override with FUZZ_SEED. */
export const FUZZ_SEED = Number(process.env.FUZZ_SEED ?? 20261121);
/** Scales every property's run count (FUZZ_SCALE=10 for a long local run). */
export const FUZZ_SCALE = Number(process.env.FUZZ_SCALE ?? 1);
export const runs = (n: number) => Math.max(1, Math.round(n * FUZZ_SCALE));

/** No request may take longer than this to be answered. */
export const ANSWER_BOUND_MS = 5000;

export const FUZZ_ENV = { ...SECURITY_TEST_ENV, RATE_LIMIT_MAX: '100000000', RATE_LIMIT_AUTH_MAX: '100000000' };

const TABLES = [
  'users',
  'user_avatars',
  'posts',
  'comments',
  'comment_likes',
  'products',
  'orders',
  'order_items',
  'idempotency_keys',
  'report_jobs',
];
const UPDATED = ['users', 'user_avatars', 'posts', 'products', 'orders', 'report_jobs'];

/** Row counts and latest update times: any insert, delete or update moves one of them. */
export async function fingerprint(db: Db): Promise<string> {
  const parts = TABLES.map((table) => sql<{ n: string }>`select count(*) as n from ${sql.table(table)}`.execute(db));
  const stamps = UPDATED.map((table) =>
    sql<{ n: string }>`select max(updated_at) as n from ${sql.table(table)}`.execute(db),
  );
  const stock = sql<{ n: string }>`select coalesce(sum(stock), 0) as n from products`.execute(db);
  const results = await Promise.all([...parts, ...stamps, stock]);
  return results.map((r) => String(r.rows[0]?.n)).join('|');
}

export interface FuzzRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
}

export interface FuzzAnswer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  text: string;
}

/**
 * Sends one request; a hang past the bound fails the property, and so does an answer the OpenAPI
 * document does not describe (checked as `request()` checks, on the path as sent: `fetch` normalizes it).
 */
export async function send(t: TestServer, request: FuzzRequest): Promise<FuzzAnswer> {
  const url = new URL(`${t.url}${request.path}`);
  const response = await fetch(url, {
    method: request.method,
    headers: request.headers,
    body: request.body as RequestInit['body'],
    signal: AbortSignal.timeout(ANSWER_BOUND_MS),
  });
  // An event stream never ends: its status and headers are the answer; the client hangs up.
  const streaming =
    response.status === 200 && (response.headers.get('content-type') ?? '').startsWith('text/event-stream');
  if (streaming) await response.body?.cancel();
  const text = streaming ? '' : await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  await checkContract({
    method: request.method,
    path: `${url.pathname}${url.search}`,
    status: response.status,
    headers: response.headers,
    text,
    body,
  });
  return { status: response.status, body, text };
}

const describeRequest = (r: FuzzRequest) =>
  `${r.method} ${r.path.slice(0, 300)} ${JSON.stringify(r.headers ?? {}).slice(0, 300)} ${typeof r.body === 'string' ? r.body.slice(0, 300) : r.body ? `<${r.body.length} bytes>` : ''}`;

/**
 * The invariants of every fuzzed REST request: no 5xx, an answer in time, the documented envelope
 * for every error, and a database untouched by every refusal.
 */
export function createChecker(t: TestServer) {
  let last = '';
  return {
    async reset() {
      last = await fingerprint(t.server.db);
    },
    async check(request: FuzzRequest, answer: FuzzAnswer, shape: 'rest' | 'graphql' = 'rest'): Promise<void> {
      const where = describeRequest(request);
      assert.ok(answer.status < 500, `${answer.status} for ${where}: ${answer.text.slice(0, 300)}`);
      // A HEAD answer has no body to carry the envelope.
      if (answer.status >= 400 && request.method !== 'HEAD') {
        if (shape === 'rest' || !Array.isArray(answer.body?.errors)) {
          assert.equal(
            typeof answer.body?.error?.code,
            'string',
            `no error envelope for ${where}: ${answer.text.slice(0, 300)}`,
          );
          assert.equal(typeof answer.body?.error?.message, 'string', `no error message for ${where}`);
        } else {
          assert.ok(
            answer.body.errors.every((e: { message?: unknown }) => typeof e.message === 'string'),
            `GraphQL errors without message for ${where}`,
          );
        }
      }
      const now = await fingerprint(t.server.db);
      // GraphQL: refused when nothing executed (no `data` key); a partly executed mutation may have acted.
      const refused =
        answer.status >= 400 ||
        (shape === 'graphql' && Array.isArray(answer.body?.errors) && !('data' in (answer.body ?? {})));
      if (refused)
        assert.equal(
          now,
          last,
          `a refused request changed the database: ${where} → ${answer.status} ${answer.text.slice(0, 200)}`,
        );
      last = now;
    },
  };
}
