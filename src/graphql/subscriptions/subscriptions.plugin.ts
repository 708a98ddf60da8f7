import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { GraphQLSchema } from 'graphql';
import type { Config } from '../../config/config.ts';
import { acceptsEventStream } from '../../core/http/event-stream.ts';
import type { LiveMetrics } from '../../core/ops/live-metrics.ts';
import type { FeedEvent } from '../../modules/events/event.ts';
import type { Services } from '../../services.ts';
import type { ExecutionGate } from '../execution-gate.ts';
import type { OperationCache } from '../operation-cache.ts';
import { createEventHub } from './event-hub.ts';
import { createLiveChecks, viewerOf } from './live-checks.ts';
import { createSseTransport } from './sse-transport.ts';
import { SUBSCRIBED_EVENT_TYPES } from './subscription-fields.ts';
import { createWsTransport } from './ws-transport.ts';

/** What the HTTP routes hand over: a request that asks for an event stream. */
export interface LiveTransports {
  wantsEventStream(request: FastifyRequest): boolean;
  serveEventStream(request: FastifyRequest, reply: FastifyReply, body: unknown): Promise<FastifyReply>;
}

/** What tests and operators read of the live side of one process. */
export interface LiveStatus {
  /** Subscriptions registered with the feed reader now, over both transports. */
  readonly subscriptions: number;
  readonly sockets: number;
  /** Queries and mutations in flight on sockets (answered before a shutdown closes them). */
  readonly answering: number;
}

export interface SubscriptionsOptions {
  config: Config;
  services: Services;
  metrics: LiveMetrics;
  schema: GraphQLSchema;
  operations: OperationCache;
  gate: ExecutionGate;
  hideSuggestions: boolean;
}

/**
 * DECISIONS §11: subscriptions over WebSocket (graphql-transport-ws) and Server-Sent Events (graphql-sse,
 * distinct connections) on /graphql, fed by one feed reader per process (event-hub.ts).
 */
export async function registerSubscriptions(
  app: FastifyInstance,
  options: SubscriptionsOptions,
): Promise<LiveTransports & { status: LiveStatus }> {
  const { config, services, metrics, schema, operations, gate, hideSuggestions } = options;
  // A commit of this process that wrote an event (the outbox's signal): read the feed now rather than at the next poll.
  const watchCommits = services.events.afterCommit;
  const handedOut = (item: FeedEvent) => metrics.feedLag((Date.now() - Date.parse(item.event.timestamp)) / 1000);
  const hub = createEventHub(
    services.events,
    SUBSCRIBED_EVENT_TYPES,
    { pollMs: config.GRAPHQL_SUBSCRIPTION_POLL_MS, watchCommits, handedOut },
    (err) => app.log.error({ err }, 'GraphQL subscription feed read failed'),
  );
  const checks = createLiveChecks({
    config,
    services,
    schema,
    operations,
    gate,
    hideSuggestions,
    log: (err) => app.log.error({ err }, 'GraphQL subscription failed'),
  });
  const authorize = (authorization: unknown) => viewerOf(services, authorization);
  const ws = createWsTransport({
    schema,
    hub,
    checks,
    maxSubscriptions: config.GRAPHQL_MAX_SUBSCRIPTIONS_PER_CONNECTION,
    log: app.log,
    viewerOf: authorize,
    tally: metrics.tally('websocket'),
  });
  const sse = createSseTransport({ schema, hub, checks, viewerOf: authorize, tally: metrics.tally('sse') });
  let closing = false;

  app.server.on('upgrade', (request, socket, head) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== '/graphql' || closing) {
      socket.end(
        `HTTP/1.1 ${closing ? '503 Service Unavailable' : '404 Not Found'}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`,
      );
      return;
    }
    ws.upgrade(request, socket, head);
  });
  // SIGTERM (server.ts closes the app): answers in flight first, then 1001 on every socket, streams completed.
  app.addHook('preClose', async () => {
    closing = true;
    sse.close();
    await ws.close(Math.min(config.SHUTDOWN_TIMEOUT_MS, 5_000));
    await hub.stop();
  });
  return {
    status: {
      get subscriptions() {
        return hub.size;
      },
      get sockets() {
        return ws.connections;
      },
      get answering() {
        return ws.answering;
      },
    },
    wantsEventStream: (request) => acceptsEventStream(request.headers.accept),
    serveEventStream: (request, reply, body) => sse.serve(request, reply, body),
  };
}
