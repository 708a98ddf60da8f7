import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { IncomingMessage } from 'node:http';

const SAFE_REQUEST_ID = /^[\w\-.:]{1,128}$/;

/** Keeps a caller's `X-Request-Id` when it is safe to log, else makes a new one. */
export function requestIdOf(request: IncomingMessage): string {
  const incoming = request.headers['x-request-id'];
  return typeof incoming === 'string' && SAFE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

export function registerRequestContext(app: FastifyInstance): void {
  app.decorateRequest('apiPrefix', '/api');
  app.decorateRequest('graphqlOperation', null);
  app.addHook('onSend', (request, reply, payload, done) => {
    markRequestContext(request, reply);
    done(null, payload);
  });
}

/** The request id on every answer (also one given outside the hooks: `frameworkErrorAnswer`). */
export function markRequestContext(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', request.id);
  if (request.url.startsWith('/api')) {
    // REST representations depend on the caller and on the negotiated version.
    reply.header('vary', 'Authorization, Accept, API-Version');
  }
}
