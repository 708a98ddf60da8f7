import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import { AppError } from '../../core/errors/app-error.ts';
import { ifMatchMatches, strongEtag } from '../../core/http/caching.ts';
import { errorBody } from '../../core/http/error-envelope.ts';
import { IdempotencyHeaders, sendIdempotent } from '../../core/idempotency/idempotency.http.ts';
import type { IdempotencyStore } from '../../core/idempotency/idempotency.store.ts';
import { BatchRequest, BatchResponse } from './batch.schemas.ts';
import { MAX_BATCH_OPERATIONS, type BatchOutcome, type BatchTarget, type PreconditionOf } from './batch.service.ts';
import type { BulkService } from './bulk.service.ts';

/** Batches are v2's (DECISIONS §18). */
export function requireV2(request: FastifyRequest): void {
  if (request.apiVersion !== 2) throw AppError.notFound('Route');
}

/** The strong ETag of a representation as its GET answers it (core/http/caching.ts). */
export const etagOf = (reply: FastifyReply, schema: TSchema, view: unknown) =>
  strongEtag(reply.serializeInput(view as Record<string, unknown>, schema as unknown as Record<string, unknown>));

/** How the batch of one resource presents its items: the GET view and its schema, for ETags. */
export interface Presented<T> {
  schema: TSchema;
  view(value: T, request: FastifyRequest): unknown;
}

function preconditionOf<T>(request: FastifyRequest, reply: FastifyReply, shown: Presented<T>): PreconditionOf<T> {
  return (ifMatch) => (current) => {
    if (!ifMatchMatches(ifMatch, etagOf(reply, shown.schema, shown.view(current, request))))
      throw new AppError('PRECONDITION_FAILED', 'The resource has changed since it was read (ifMatch does not match)');
  };
}

function bodyOf<T>(
  outcome: BatchOutcome<T>,
  atomic: boolean,
  request: FastifyRequest,
  reply: FastifyReply,
  shown: Presented<T>,
) {
  const results = outcome.results.map(({ index, status, id, value, error }) => ({
    index,
    status,
    ...(id !== undefined ? { id } : {}),
    ...(value !== undefined && status !== 204 ? { etag: etagOf(reply, shown.schema, shown.view(value, request)) } : {}),
    ...(error ? errorBody(error) : {}),
  }));
  return atomic ? { results } : { results, succeeded: outcome.succeeded, failed: outcome.failed };
}

const BATCH_BODY_LIMIT = 8 * 1024 * 1024;

/** `POST /{resource}/batch` for one resource: the thin adapter over `bulk.batch`. */
export function batchRoute<T>(
  resource: string,
  access: 'user' | 'admin',
  target: (bulk: BulkService) => BatchTarget<T>,
  shown: Presented<T>,
): FastifyPluginAsyncTypebox<{ bulk: BulkService; idempotency: IdempotencyStore }> {
  return async (app, { bulk, idempotency }) => {
    app.post(
      `/${resource}/batch`,
      {
        bodyLimit: BATCH_BODY_LIMIT,
        config: {
          access,
          openapi: {
            errors: {
              404: {
                description: 'An atomic batch: an operation names no such item',
                code: 'NOT_FOUND',
                message: 'products 7 not found',
              },
              409: {
                description:
                  'An atomic batch: an operation conflicts (a taken `sku` or email, an item in orders), or the `Idempotency-Key` is in use',
                code: 'CONFLICT',
                message: 'Another product has this sku',
              },
              412: {
                description: "An atomic batch: an operation's `ifMatch` does not match",
                code: 'PRECONDITION_FAILED',
                message: 'The resource has changed since it was read (ifMatch does not match)',
              },
              413: {
                description: 'Over 1,000 operations or 8 MiB',
                code: 'PAYLOAD_TOO_LARGE',
                message: 'A batch holds at most 1000 operations',
              },
            },
          },
        },
        schema: {
          tags: ['bulk'],
          summary: `Create, update, upsert or delete ${resource} in one request (v2)`,
          headers: IdempotencyHeaders,
          body: BatchRequest,
          response: { 200: BatchResponse },
        },
      },
      async (request, reply) => {
        requireV2(request);
        // The rate limit counts each operation (the request itself counted one), before any write; a batch
        // over the size limit is refused by the service with 413 and charges nothing more.
        const count = request.body.operations.length;
        if (count <= MAX_BATCH_OPERATIONS)
          await request.server.chargeRateLimit?.(request, reply, Math.max(0, count - 1));
        return sendIdempotent(request, reply, idempotency, async () => {
          const outcome = await bulk.batch(
            request.principal,
            target(bulk),
            request.body,
            preconditionOf(request, reply, shown),
          );
          return {
            status: 200,
            headers: {},
            body: bodyOf(outcome, request.body.atomic !== false, request, reply, shown),
          };
        });
      },
    );
  };
}
