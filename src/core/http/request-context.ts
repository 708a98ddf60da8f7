import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { IncomingMessage } from 'node:http';
import { runWithOrigin } from './write-origin.ts';

const SAFE_REQUEST_ID = /^[\w\-.:]{1,128}$/;

/** Keeps a caller's `X-Request-Id` when it is safe to log, else makes a new one. */
export function requestIdOf(request: IncomingMessage): string {
  const incoming = request.headers['x-request-id'];
  return typeof incoming === 'string' && SAFE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

export function registerRequestContext(app: FastifyInstance): void {
  app.decorateRequest('apiPrefix', '/api');
  app.decorateRequest('graphqlOperation', null);
  // The request's writes know their request id and caller (write-origin.ts: revisions, DECISIONS §19);
  // the rest of the hooks and the handler run inside it. Registered before access control.
  app.addHook('onRequest', (request, _reply, done) => {
    runWithOrigin({ requestId: request.id, principal: () => request.principal ?? null }, done);
  });
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
