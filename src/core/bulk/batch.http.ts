import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import { AppError } from '../errors/app-error.ts';
import { servesVersions } from '../http/versioning.ts';
import { ifMatchMatches, strongEtag } from '../http/caching.ts';
import { errorBody } from '../http/error-envelope.ts';
import { IdempotencyHeaders, sendIdempotent } from '../idempotency/idempotency.http.ts';
import type { IdempotencyStore } from '../idempotency/idempotency.store.ts';
import { BatchRequestBody, BatchResponse } from './batch.schemas.ts';
import { MAX_BATCH_OPERATIONS, type Batch, type BatchOutcome, type PreconditionOf } from './batch.ts';

/** The strong ETag of a representation as its GET answers it (core/http/caching.ts). */
const etagOf = (reply: FastifyReply, schema: TSchema, view: unknown) =>
  strongEtag(reply.serializeInput(view as Record<string, unknown>, schema as unknown as Record<string, unknown>));

/** What a resource's batch route needs: its service's batch, and its GET view and schema (for ETags). */
export interface BatchRoute<T> {
  resource: string;
  access: 'user' | 'admin';
  batch: Batch<T>;
  idempotency: IdempotencyStore;
  schema: TSchema;
  view(value: T, request: FastifyRequest): unknown;
}

function preconditionOf<T>(request: FastifyRequest, reply: FastifyReply, route: BatchRoute<T>): PreconditionOf<T> {
  return (ifMatch) => (current) => {
    if (!ifMatchMatches(ifMatch, etagOf(reply, route.schema, route.view(current, request))))
      throw new AppError('PRECONDITION_FAILED', 'The resource has changed since it was read (ifMatch does not match)');
  };
}

function bodyOf<T>(
  outcome: BatchOutcome<T>,
  atomic: boolean,
  request: FastifyRequest,
  reply: FastifyReply,
  route: BatchRoute<T>,
) {
  const results = outcome.results.map(({ index, status, id, value, error }) => ({
    index,
    status,
    ...(id !== undefined ? { id } : {}),
    ...(value !== undefined && status !== 204 ? { etag: etagOf(reply, route.schema, route.view(value, request)) } : {}),
    ...(error ? errorBody(error) : {}),
  }));
  return atomic ? { results } : { results, succeeded: outcome.succeeded, failed: outcome.failed };
}

const BATCH_BODY_LIMIT = 8 * 1024 * 1024;

/** Batches are v2's (DECISIONS §18). */
const VERSIONS = [2] as const;

const ERRORS = {
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
};

/**
 * `POST /{resource}/batch` (DECISIONS §18, v2 only): the thin adapter over the service's `batch`,
 * under the request's `Idempotency-Key`, each operation counted against the rate limit.
 */
export function registerBatchRoute<T>(app: FastifyInstance, route: BatchRoute<T>): void {
  // Batches are v2's: not in v1's route table, refused in a negotiated v1 (core/http/versioned-api.ts).
  if (!servesVersions(app, VERSIONS)) return;
  app.post<{ Body: BatchRequestBody }>(
    `/${route.resource}/batch`,
    {
      bodyLimit: BATCH_BODY_LIMIT,
      config: { access: route.access, openapi: { errors: ERRORS, versions: VERSIONS } },
      schema: {
        tags: [route.resource],
        summary: `Create, update, upsert or delete ${route.resource} in one request (v2)`,
        headers: IdempotencyHeaders,
        body: BatchRequestBody,
        response: { 200: BatchResponse },
      },
    },
    async (request, reply) => {
      // The rate limit counts each operation (the request itself counted one), before any write; a batch
      // over the size limit is refused by the service with 413 and charges nothing more.
      const count = request.body.operations.length;
      if (count <= MAX_BATCH_OPERATIONS) await request.server.chargeRateLimit?.(request, reply, Math.max(0, count - 1));
      return sendIdempotent(request, reply, route.idempotency, async () => {
        const outcome = await route.batch(request.principal, request.body, preconditionOf(request, reply, route));
        return {
          status: 200,
          headers: {},
          body: bodyOf(outcome, request.body.atomic !== false, request, reply, route),
        };
      });
    },
  );
}
