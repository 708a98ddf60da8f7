import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { IdempotencyStore, StoredResponse } from './idempotency.store.ts';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const REPLAYED_HEADER = 'idempotent-replayed';

/**
 * The route `headers` schema of an idempotent POST: a malformed key is a 422 naming the header.
 * Visible ASCII only, at most 200 characters (the column's width), e.g. a UUID.
 */
export const IdempotencyHeaders = Type.Object({
  [IDEMPOTENCY_HEADER]: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      pattern: '^[\\x21-\\x7E]+$',
      description: 'Replays the first response for the same key and body within 24 hours',
    }),
  ),
});

/**
 * Runs a write under the request's `Idempotency-Key`, if it has one, and sends the result.
 * The scope is the caller, the method and the route pattern; the fingerprint is the concrete
 * path and the body, so one key reused for another order or another body is refused. A replay
 * returns the first response as it was, links included (under the prefix the first request used).
 */
export async function sendIdempotent(
  request: FastifyRequest,
  reply: FastifyReply,
  store: IdempotencyStore,
  work: () => Promise<StoredResponse>,
): Promise<FastifyReply> {
  const key = request.headers[IDEMPOTENCY_HEADER];
  if (typeof key !== 'string') return send(reply, await work());
  const caller = request.principal ? `user:${request.principal.userId}` : 'anonymous';
  // Without the API prefix: one key means one operation whether sent to /api, /api/v1 or /api/v2.
  const unprefixed = (path: string) =>
    path.startsWith(request.apiPrefix) ? path.slice(request.apiPrefix.length) : path;
  const outcome = await store.run(
    {
      scope: `${caller} ${request.method} ${unprefixed(request.routeOptions.url ?? '')}`,
      key,
      fingerprint: { path: unprefixed(request.url.split('?')[0] ?? ''), body: request.body ?? null },
    },
    work,
  );
  if (outcome.replayed) reply.header(REPLAYED_HEADER, 'true');
  return send(reply, outcome);
}

function send(reply: FastifyReply, response: StoredResponse): FastifyReply {
  return reply.code(response.status).headers(response.headers).send(response.body);
}
