import { hash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import { AppError } from '../errors/app-error.ts';
import type { Precondition } from '../precondition.ts';

/** A strong validator over the exact bytes of a representation. */
export function strongEtag(payload: string | Buffer): string {
  return `"${hash('sha1', payload, 'base64url')}"`;
}

function tagsOf(header: string): string[] {
  return header.split(',').map((tag) => tag.trim());
}

/** `If-None-Match` uses the weak comparison: `W/"x"` matches `"x"`; `*` matches anything. */
export function ifNoneMatchMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const plain = (tag: string) => tag.replace(/^W\//, '');
  return tagsOf(header).some((tag) => tag === '*' || plain(tag) === plain(etag));
}

/** `If-Match` uses the strong comparison: a weak tag never matches. */
export function ifMatchMatches(header: string, etag: string): boolean {
  return tagsOf(header).some((tag) => tag === '*' || tag === etag);
}

const DEFAULT_CACHE_CONTROL = 'private, no-cache';

/**
 * Every successful GET gets a strong ETag of its body and a Cache-Control; a matching
 * `If-None-Match` turns it into a 304 with no body, whatever the request's own Cache-Control says.
 * A 200 `PUT` or `PATCH` of a resource that takes `If-Match` carries its new ETag.
 */
export function registerHttpCaching(app: FastifyInstance): void {
  app.addHook('onSend', (request, reply, payload, done) => done(null, withValidator(request, reply, payload)));
}

/**
 * The answer of a conditional write is the representation a GET would show now (the same view, through
 * the same serializer), so the ETag of its bytes is the one the next `If-Match` is compared with: a client
 * chains writes without a GET between them.
 */
function withNewEtag(request: FastifyRequest, reply: FastifyReply, payload: unknown): unknown {
  if (reply.statusCode === 200 && request.routeOptions.config.openapi?.ifMatch) {
    if (typeof payload === 'string' || Buffer.isBuffer(payload)) reply.header('etag', strongEtag(payload));
  }
  return payload;
}

function withValidator(request: FastifyRequest, reply: FastifyReply, payload: unknown): unknown {
  if (request.method === 'PUT' || request.method === 'PATCH') return withNewEtag(request, reply, payload);
  if (request.method !== 'GET' && request.method !== 'HEAD') return payload;
  if (reply.statusCode !== 200 || (typeof payload !== 'string' && !Buffer.isBuffer(payload))) return payload;
  // An event stream's GET is a stream (no validator, above); its HEAD, an empty body standing for it, gets none
  // either: an ETag of nothing would let `If-None-Match: *` answer 304 for a representation never sent.
  if (String(reply.getHeader('content-type') ?? '').startsWith('text/event-stream')) return payload;
  const etag = (reply.getHeader('etag') as string | undefined) ?? strongEtag(payload);
  reply.header('etag', etag);
  if (!reply.hasHeader('cache-control')) {
    reply.header('cache-control', request.routeOptions.config.cacheControl ?? DEFAULT_CACHE_CONTROL);
  }
  if (ifNoneMatchMatches(request.headers['if-none-match'], etag)) {
    reply.code(304);
    reply.removeHeader('content-type');
    reply.removeHeader('content-length');
    // HEAD: the payload stays for Fastify's own HEAD hook, which runs after ours, sends no body and sets
    // Content-Length to the 200's length (allowed on a 304, RFC 9110 §8.6); that hook cannot take a null
    // payload (it reads `payload.resume`: a 500 on every conditional HEAD before).
    if (request.method === 'HEAD') return payload;
    // GET: no payload at all: an empty string made Fastify send `Content-Length: 0`, which on a 304
    // claims the 200 would be empty (RFC 9110 §8.6: only the 200's length, or none).
    return null;
  }
  return payload;
}

/**
 * Checks `If-Match` on a write against the ETag the current representation would have on GET:
 * the same view serialized by the same schema. No header means no precondition.
 */
export function assertIfMatch(request: FastifyRequest, reply: FastifyReply, schema: TSchema, current: unknown): void {
  const header = request.headers['if-match'];
  if (!header) return;
  const etag = strongEtag(
    reply.serializeInput(current as Record<string, unknown>, schema as unknown as Record<string, unknown>),
  );
  if (!ifMatchMatches(header, etag)) {
    throw new AppError('PRECONDITION_FAILED', 'The resource has changed since it was read (If-Match does not match)');
  }
}

/** Builds the `If-Match` precondition a service runs on the current state inside its transaction. */
export function ifMatchPrecondition<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  schema: TSchema,
  present: (current: T) => unknown,
): Precondition<T> | undefined {
  if (!request.headers['if-match']) return undefined;
  return (current) => assertIfMatch(request, reply, schema, present(current));
}
