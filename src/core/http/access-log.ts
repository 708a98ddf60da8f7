import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

/**
 * One access-log line per answered request, at `info`, with method, URL, status, time and request
 * id, instead of Fastify's two lines (one on arrival, one on completion, together the largest
 * single cost of a small GET). The arrival line is still written at `debug` (the
 * graceful-shutdown suite lists the requests a server accepted with it); error lines are Fastify's.
 *
 * The caller's id (`userId`, from the verified token) and, on GraphQL, the operation's name and type
 * (`operation`, `operationType`, known once the document passed validation) join the line. Never a
 * token, a password or a body: `req` is Fastify's serializer (method, URL, host, address, port).
 */
export class AccessLogController extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const fields = accessFields(request, reply);
    if (error) reply.log.error({ ...fields, err: error }, 'request errored');
    else reply.log.info(fields, 'request completed');
  }
}

interface AccessFields {
  req: FastifyRequest;
  res: FastifyReply;
  responseTime: number;
  userId?: number;
  operation?: string;
  operationType?: string;
}

export function accessFields(request: FastifyRequest, reply: FastifyReply): AccessFields {
  const fields: AccessFields = { req: request, res: reply, responseTime: reply.elapsedTime };
  if (request.principal) fields.userId = request.principal.userId;
  const operation = request.graphqlOperation;
  if (operation && operation.outcome !== 'rejected') {
    fields.operation = operation.name;
    fields.operationType = operation.type;
  }
  return fields;
}
