import type { IncomingHttpHeaders } from 'node:http';
import { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

export interface BodyDeadlines {
  /** `REQUEST_TIMEOUT_MS`: how long a request may take to arrive, unless its route allows more. */
  requestTimeoutMs: number;
  /** Node's own deadline, the server's `requestTimeout`: the longest any route allows. */
  serverTimeoutMs: number;
  /** Answers a request cut off (the server's `clientError` handler). */
  timedOut: (error: Error, socket: Socket) => void;
}

/**
 * The request timeout, per route. Node's `requestTimeout` (the whole request received within a deadline:
 * what cuts off a client that sends its body slowly) is one setting for the whole server, and an import's
 * upload of a large file over an ordinary link needs minutes where every other body needs seconds. So
 * the server's own deadline is the longest any route allows, and this hook holds each other request to
 * its route's (`config.bodyTimeoutMs`, else `requestTimeoutMs`) from its start: a body still arriving
 * then is answered as Node answers its own timeout (`ERR_HTTP_REQUEST_TIMEOUT`: a 408 in the error
 * envelope, the connection closed).
 */
/** A request with a body to come: a length above zero, or chunked (Node marks a bodyless GET incomplete too). */
const hasBody = (headers: IncomingHttpHeaders): boolean =>
  headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0;

export function registerBodyDeadline(app: FastifyInstance, deadlines: BodyDeadlines): void {
  const { requestTimeoutMs, serverTimeoutMs, timedOut } = deadlines;
  app.addHook('onRequest', (request, reply, done) => {
    const raw = request.raw;
    const allowed = request.routeOptions.config.bodyTimeoutMs ?? requestTimeoutMs;
    // A request without a body is whole once its headers are (HEADERS_TIMEOUT_MS bounds those); an
    // injected one (tests, light-my-request) has no connection to cut.
    if (!hasBody(raw.headers) || raw.complete || allowed >= serverTimeoutMs || !(raw.socket instanceof Socket))
      return done();
    const timer = setTimeout(() => {
      if (raw.complete || raw.socket.destroyed) return;
      timedOut(Object.assign(new Error('request timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }), raw.socket);
    }, allowed);
    timer.unref();
    const stop = () => clearTimeout(timer);
    raw.once('end', stop);
    raw.once('close', stop);
    // Answered: whatever of the body is left is Node's to discard.
    reply.raw.once('finish', stop);
    done();
  });
}
