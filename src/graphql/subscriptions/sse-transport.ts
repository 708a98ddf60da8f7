import { PassThrough } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createHandler, type Request as SseRequest } from 'graphql-sse';
import type { GraphQLSchema } from 'graphql';
import { AppError } from '../../core/errors/app-error.ts';
import type { LiveTally } from '../../core/ops/live-metrics.ts';
import { requestError } from '../errors.ts';
import type { EventHub } from './event-hub.ts';
import type { LiveChecks } from './live-checks.ts';
import { MAX_QUEUED_EVENTS, startLiveOperation, type LiveViewer } from './live-operation.ts';

/** Bytes written but not yet taken by the client past which the stream is cut off (a consumer that does not read). */
const MAX_BUFFERED_BYTES = 1024 * 1024;

interface SseContext {
  viewer: LiveViewer;
  reply: FastifyReply;
  /**
   * Payloads graphql-sse took from the operation and not yet written to the stream: its handler reads the
   * operation eagerly into a queue of its own, unbounded, so the operation's queue never fills.
   */
  unsent: number;
  congested(): boolean;
  slow(): void;
}

export interface SseTransportOptions {
  schema: GraphQLSchema;
  hub: EventHub;
  checks: LiveChecks;
  viewerOf(authorization: unknown): Promise<LiveViewer>;
  tally: LiveTally;
}

const json = (status: number, body: unknown) =>
  [
    JSON.stringify(body),
    {
      status,
      statusText: status === 401 ? 'Unauthorized' : 'Bad Request',
      headers: { 'content-type': 'application/json; charset=utf-8' },
    },
  ] as const;

/**
 * GraphQL over Server-Sent Events, the `graphql-sse` protocol in distinct connections mode (a GET or POST
 * with `Accept: text/event-stream`), through graphql-sse's protocol handler (`createHandler`, its public
 * API) and our pipeline. The token is the request's Authorization (401 without a valid one). The stream
 * is sent through Fastify (its hooks mark the answer), ended at the token's `exp` with an UNAUTHENTICATED
 * error, and cut off when the client does not read.
 */
export function createSseTransport(options: SseTransportOptions) {
  const { schema, hub, checks, tally } = options;
  const streams = new Set<() => void>();
  const handler = createHandler<FastifyRequest, SseContext>({
    schema,
    onNext(_ctx, req) {
      req.context.unsent += 1;
    },
    async onSubscribe(req, params) {
      const context = req.context;
      const operationName = params.operationName ?? undefined;
      const checked = checks.check(params.query, operationName, params.variables ?? undefined);
      if ('errors' in checked) return json(400, { errors: checked.errors.map((e) => e.toJSON()) });
      const logUnexpected = (err: unknown) => req.raw.log.error({ err }, 'GraphQL subscription resolver failed');
      const { prepared, variables } = checked;
      if (prepared.operation.operation !== 'subscription') {
        if (req.method !== 'POST' && prepared.operation.operation === 'mutation')
          return json(405, {
            errors: [{ message: 'Mutations must be sent with POST', extensions: { code: 'METHOD_NOT_ALLOWED' } }],
          });
        return checks.runOnce(prepared, variables, operationName, context.viewer, logUnexpected);
      }
      return startLiveOperation({
        schema,
        hub,
        prepared,
        variables,
        operationName,
        viewer: context.viewer,
        logUnexpected,
        onSlow: context.slow,
        congested: context.congested,
        tally,
      });
    },
  });

  return {
    async serve(request: FastifyRequest, reply: FastifyReply, body: unknown): Promise<FastifyReply> {
      // A client may leave while its subscription is set up (on PostgreSQL, until the feed reader's first
      // read): its stream is then stopped as soon as it exists, not left to the next event it would be sent.
      let left = false;
      reply.raw.once('close', () => {
        left = true;
      });
      let viewer: LiveViewer;
      try {
        viewer = await options.viewerOf(request.headers.authorization);
      } catch (error) {
        const appError =
          error instanceof AppError ? error : AppError.unauthorized('Invalid access token', 'unverifiable');
        if (appError.headers) reply.headers(appError.headers);
        return reply
          .code(appError.status)
          .type('application/json; charset=utf-8')
          .send(JSON.stringify({ errors: [requestError(appError)] }));
      }
      const out = new PassThrough();
      const context: SseContext = {
        viewer,
        reply,
        unsent: 0,
        congested: () =>
          context.unsent >= MAX_QUEUED_EVENTS || out.readableLength + reply.raw.writableLength > MAX_BUFFERED_BYTES,
        slow: () => {
          if (reply.raw.destroyed) return;
          tally.cutOff();
          reply.raw.destroy();
        },
      };
      const sseRequest: SseRequest<FastifyRequest, SseContext> = {
        method: request.method,
        url: request.url,
        headers: {
          get: (key) => (key === 'accept' ? 'text/event-stream' : (request.headers[key] as string | undefined)),
        },
        body: request.method === 'POST' ? (body as Record<string, unknown>) : null,
        raw: request,
        context,
      };
      // Counted open from here: the handler registers the subscription (and /metrics shows it) before it
      // returns, which on PostgreSQL waits for the feed reader's first read; a scrape in between saw a
      // subscription without its stream (a CI flake under load).
      tally.connected();
      let answer: Awaited<ReturnType<typeof handler>>[0];
      try {
        let init: Awaited<ReturnType<typeof handler>>[1];
        [answer, init] = await handler(sseRequest);
        reply.code(init.status);
        for (const [name, value] of Object.entries(init.headers ?? {})) {
          if (name !== 'connection' && name !== 'content-encoding') reply.header(name, value);
        }
      } catch (error) {
        tally.disconnected();
        throw error;
      }
      if (answer === null || typeof answer === 'string') {
        tally.disconnected();
        return reply.send(answer ?? '');
      }
      const stream = answer;
      const stop = () => void stream.return(undefined);
      streams.add(stop);
      reply.raw.on('close', stop);
      if (left) stop();
      void (async () => {
        try {
          for await (const chunk of stream) {
            if (chunk.startsWith('event: next')) context.unsent -= 1;
            // A cut or lost connection: Fastify destroyed the stream, whose drain or close would never come.
            if (out.destroyed) break;
            if (!out.write(chunk)) await new Promise((resolve) => out.once('drain', resolve).once('close', resolve));
          }
        } catch (err) {
          request.log.error({ err }, 'GraphQL event stream failed');
        } finally {
          streams.delete(stop);
          tally.disconnected();
          out.end();
        }
      })();
      return reply.header('x-accel-buffering', 'no').send(out);
    },
    /**
     * SIGTERM: every stream ends (its last payloads written first) without a `complete` event, so that the
     * client may subscribe again elsewhere, as a WebSocket's 1001 tells it.
     */
    close(): void {
      for (const stop of streams) stop();
    },
  };
}

export type SseTransport = ReturnType<typeof createSseTransport>;
