import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

/**
 * One access-log line per answered request, at `info`, with method, URL, status, time and request
 * id, instead of Fastify's two lines (one on arrival, one on completion, together the largest
 * single cost of a small GET: bench/RESULTS.md). The arrival line is still written at `debug` (the
 * graceful-shutdown suite lists the requests a server accepted with it); error lines are Fastify's.
 */
export class AccessLogController extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) reply.log.error({ req: request, res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored');
    else reply.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}
