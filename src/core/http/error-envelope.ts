import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable, isStatementCancelled } from '../db/connection-errors.ts';
import { isForeignKeyViolation } from '../db/db-errors.ts';
import { AppError, codeForStatus } from '../errors/app-error.ts';
import { toErrorDetails } from '../validation/ajv.ts';
import type { RouteIndex } from './route-index.ts';

export interface ErrorBody {
  error: { code: string; message: string; details?: { field: string; message: string }[] };
}

export function errorBody(error: AppError): ErrorBody {
  return {
    error: {
      code: error.code,
      message: error.message,
      ...(error.details && error.details.length > 0 ? { details: error.details } : {}),
    },
  };
}

export function sendError(reply: FastifyReply, error: AppError): FastifyReply {
  if (error.headers) reply.headers(error.headers);
  return reply.code(error.status).type('application/json; charset=utf-8').send(errorBody(error));
}

/** Maps anything thrown while serving a request into the one error envelope. */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const fastifyError = error as Partial<FastifyError> & { validationContext?: string };
  if (fastifyError.validation) {
    // A path id that is not a positive integer names nothing: 404, as for an unknown id.
    if (fastifyError.validationContext === 'params') return AppError.notFound('Resource');
    return AppError.validation(toErrorDetails(fastifyError.validation as never));
  }
  const status = fastifyError.statusCode;
  if (status && status >= 400 && status < 500) {
    return new AppError(codeForStatus(status), frameworkMessage(fastifyError, status), { status });
  }
  if (isForeignKeyViolation(error)) return referenceGone();
  if (isDatabaseUnavailable(error)) {
    return new AppError('SERVICE_UNAVAILABLE', 'The database is unavailable; retry shortly', {
      headers: { 'Retry-After': '5' },
    });
  }
  // DATABASE_STATEMENT_TIMEOUT_MS ran out: 503 like an outage (transient, not the client's fault; the one
  // 5xx every operation documents with Retry-After), but saying what happened, and never the database's text.
  if (isStatementCancelled(error)) {
    return new AppError('SERVICE_UNAVAILABLE', 'The database took too long to answer this request; retry shortly', {
      headers: { 'Retry-After': '5' },
    });
  }
  return new AppError('INTERNAL', 'Internal server error');
}

/**
 * A write whose referenced row vanished between the service's checks and its statement (the caller's
 * account deleted mid-request, say) is a conflict with the current state, not a server fault. Services
 * name the missing row where they can; this is the floor under them.
 */
export function referenceGone(): AppError {
  return AppError.conflict('A record this request refers to no longer exists');
}

function frameworkMessage(error: Partial<FastifyError>, status: number): string {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'Request body is too large';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'Unsupported Content-Type; send application/json';
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return 'Request body is not valid JSON';
    default:
      if (error.name === 'SyntaxError' || status === 400) return 'Request body is not valid JSON';
      return error.message ?? 'Bad request';
  }
}

/**
 * 405 with `Allow` when the path is served by other methods, else 404: the answer to a request no route serves.
 * `what` names the missing thing; the default names the route (an id that is not one names nothing: `Resource`).
 */
export function notServed(
  routes: RouteIndex,
  request: FastifyRequest,
  reply: FastifyReply,
  what = `Route ${request.method} ${request.url.split('?')[0]}`,
): FastifyReply {
  const allowed = routes.allowedMethods(request.url, request.apiVersion);
  if (allowed.length > 0 && !allowed.includes(request.method)) {
    return sendError(
      reply,
      new AppError('METHOD_NOT_ALLOWED', `Method ${request.method} is not allowed here`, {
        headers: { Allow: allowed.join(', ') },
      }),
    );
  }
  return sendError(reply, AppError.notFound(what));
}

/** Installs the error handler and the not-found handler (404, or 405 with `Allow`). */
export function registerErrorHandling(app: FastifyInstance, routes: RouteIndex): void {
  app.setErrorHandler((error, request, reply) => {
    const appError = toAppError(error);
    if (appError.status === 500) request.log.error({ err: error }, 'request failed');
    else if (appError.status === 503) request.log.warn({ err: error }, 'dependency unavailable');
    return sendError(reply, appError);
  });

  app.setNotFoundHandler((request, reply) => notServed(routes, request, reply));
}
