import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { GraphQLError, type ExecutionArgs } from 'graphql';
import { CloseCode, handleProtocols, makeServer } from 'graphql-ws';
import { WebSocketServer, type WebSocket } from 'ws';
import type { FastifyBaseLogger } from 'fastify';
import { AppError } from '../../core/errors/app-error.ts';
import type { LiveTally } from '../../core/ops/live-metrics.ts';
import type { EventHub } from './event-hub.ts';
import type { LiveChecks } from './live-checks.ts';
import { startLiveOperation, type LiveViewer } from './live-operation.ts';
import { createWriteBatches } from './write-batches.ts';
import type { GraphQLSchema } from 'graphql';

/** DECISIONS §8: a message is at most what a request body may be; a larger one closes the socket (1009). */
const MAX_MESSAGE_BYTES = 1024 * 1024;
/** A socket whose unsent answers pass this is a consumer that does not read: closed, not buffered without end. */
const MAX_BUFFERED_BYTES = 1024 * 1024;
/** Below this much unsent, a payload's sender goes on at once (its next payload joins the same write). */
const EAGER_BYTES = 64 * 1024;
/** Pings keep idle connections through proxies; a peer that does not answer within one interval is cut off. */
const KEEP_ALIVE_MS = 12_000;

export const CLOSE_UNAUTHORIZED = 4401;
export const CLOSE_SLOW_CONSUMER = 1008;
export const CLOSE_GOING_AWAY = 1001;

interface Connection {
  socket: WebSocket;
  /** The connection under the socket (the upgrade's): held to send queued payloads in one write. */
  raw: Duplex;
  request: IncomingMessage;
  viewer?: LiveViewer;
  expiry?: NodeJS.Timeout;
  subscriptions: number;
  /** Queries and mutations not answered yet, by id: each resolved once its `complete` is on its way. */
  answering: Map<string, () => void>;
  /** Closed for not reading (counted once, whichever subscription or write found it out). */
  cutOff?: boolean;
}

export interface WsTransportOptions {
  schema: GraphQLSchema;
  hub: EventHub;
  checks: LiveChecks;
  maxSubscriptions: number;
  log: FastifyBaseLogger;
  viewerOf(authorization: unknown): Promise<LiveViewer>;
  tally: LiveTally;
}

/** Execution args carrying what our execute/subscribe below need; graphql-ws passes them through untouched. */
type LiveArgs = ExecutionArgs & {
  contextValue: {
    connection: Connection;
    id: string;
    prepared: ReturnType<LiveChecks['check']> & { prepared: unknown };
  };
};

/**
 * GraphQL over WebSocket with the `graphql-transport-ws` subprotocol: graphql-ws's protocol server
 * (`makeServer`, its public API) over `ws` sockets, with our pipeline for each operation. The token comes
 * in `connection_init`'s payload (`authorization`) or the upgrade request's Authorization header; without
 * a valid one the socket is closed with 4401, and at the token's `exp` too.
 */
export function createWsTransport(options: WsTransportOptions) {
  const { schema, hub, checks, log, tally } = options;
  const batches = createWriteBatches();
  const connections = new Set<Connection>();
  const running = new Set<Promise<unknown>>();
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES, handleProtocols });
  const logUnexpected = (err: unknown) => log.error({ err }, 'GraphQL subscription resolver failed');
  /** Back-pressure: a consumer that does not read is closed with 1008, not buffered without end. */
  const cutOff = (connection: Connection) => {
    if (connection.cutOff) return;
    connection.cutOff = true;
    tally.cutOff();
    connection.socket.close(CLOSE_SLOW_CONSUMER, 'Slow consumer');
  };

  const server = makeServer<Record<string, unknown> | undefined, Connection>({
    schema,
    connectionInitWaitTimeout: 3_000,
    async onConnect(ctx) {
      const connection = ctx.extra;
      try {
        connection.viewer = await options.viewerOf(
          ctx.connectionParams?.authorization ?? connection.request.headers.authorization,
        );
      } catch (error) {
        if (!(error instanceof AppError) || error.status !== 401) log.error({ err: error }, 'GraphQL socket refused');
        connection.socket.close(CLOSE_UNAUTHORIZED, 'Unauthorized');
        return false;
      }
      // DECISIONS §11: the connection (every subscription on it) ends when its token expires.
      connection.expiry = setTimeout(
        () => connection.socket.close(CLOSE_UNAUTHORIZED, 'Token expired'),
        Math.max(0, connection.viewer.expiresAt - Date.now()),
      );
      return true;
    },
    onSubscribe(ctx, id, payload) {
      const connection = ctx.extra;
      const checked = checks.check(payload.query, payload.operationName ?? undefined, payload.variables ?? undefined);
      if ('errors' in checked) return checked.errors;
      if (checked.prepared.operation.operation === 'subscription') {
        if (connection.subscriptions >= options.maxSubscriptions) {
          return [
            new GraphQLError(`At most ${options.maxSubscriptions} subscriptions at once on a connection`, {
              extensions: { code: 'BAD_REQUEST', limit: options.maxSubscriptions },
            }),
          ];
        }
        // Counted here, not when the subscription starts: a burst of subscribe messages is checked one by one.
        connection.subscriptions += 1;
      }
      return {
        schema,
        document: checked.prepared.document,
        operationName: payload.operationName ?? undefined,
        variableValues: checked.variables,
        contextValue: { connection, id, prepared: checked },
      } satisfies ExecutionArgs;
    },
    execute: (args) => {
      const { connection, id, prepared } = (args as LiveArgs).contextValue;
      const checked = prepared as unknown as Exclude<ReturnType<LiveChecks['check']>, { errors: unknown }>;
      const run = checks.runOnce(
        checked.prepared,
        checked.variables,
        args.operationName ?? undefined,
        connection.viewer!,
        logUnexpected,
      );
      // In flight until graphql-ws has its answer and is about to send its `complete` (onComplete below):
      // a shutdown closes the socket only after that (close()).
      const answered = new Promise<void>((resolve) => connection.answering.set(id, resolve));
      running.add(answered);
      void answered.then(() => running.delete(answered));
      return run;
    },
    onComplete(ctx, id) {
      const answered = ctx.extra.answering.get(id);
      ctx.extra.answering.delete(id);
      answered?.();
    },
    subscribe: async (args) => {
      const { connection, prepared } = (args as LiveArgs).contextValue;
      const checked = prepared as unknown as Exclude<ReturnType<LiveChecks['check']>, { errors: unknown }>;
      let live;
      try {
        live = await startLiveOperation({
          schema,
          hub,
          prepared: checked.prepared,
          variables: checked.variables,
          operationName: args.operationName ?? undefined,
          viewer: connection.viewer!,
          logUnexpected,
          onSlow: () => cutOff(connection),
          onBacklog: () => batches.hold(connection.raw),
          tally,
        });
      } catch (error) {
        connection.subscriptions -= 1;
        throw error;
      }
      const release = () => {
        connection.subscriptions -= 1;
      };
      const original = live.return.bind(live);
      let released = false;
      live.return = (value) => {
        if (!released) {
          released = true;
          release();
        }
        return original(value);
      };
      return live;
    },
  });

  function accept(socket: WebSocket, request: IncomingMessage, raw: Duplex): void {
    const connection: Connection = { socket, request, raw, subscriptions: 0, answering: new Map() };
    connections.add(connection);
    tally.connected();
    let alive = true;
    const keepAlive = setInterval(() => {
      if (!alive) {
        socket.terminate();
        return;
      }
      alive = false;
      socket.ping();
    }, KEEP_ALIVE_MS);
    socket.on('pong', () => (alive = true));
    socket.on('error', (err) => log.debug({ err }, 'GraphQL socket error'));
    const closed = server.opened(
      {
        protocol: socket.protocol,
        send: (data) =>
          new Promise<void>((resolve) => {
            if (socket.readyState !== socket.OPEN) return resolve();
            if (socket.bufferedAmount > MAX_BUFFERED_BYTES) {
              cutOff(connection);
              return resolve();
            }
            // A subscription goes on to its next payload at once while little is unsent (queued events, held by
            // onBacklog, go out in one write), else once this one is written out: it waits for a socket that lags.
            if (socket.bufferedAmount + data.length <= EAGER_BYTES) {
              socket.send(data);
              resolve();
            } else socket.send(data, () => resolve());
          }),
        close: (code, reason) => socket.close(code, reason),
        onMessage: (cb) =>
          socket.on('message', (data: Buffer | Buffer[] | ArrayBuffer, isBinary: boolean) => {
            if (isBinary) {
              socket.close(CloseCode.BadRequest, 'Binary messages are not supported');
              return;
            }
            cb(String(data)).catch((err: unknown) => {
              log.error({ err }, 'GraphQL socket message failed');
              socket.close(CloseCode.InternalServerError, 'Internal server error');
            });
          }),
      },
      connection,
    );
    socket.once('close', (code, reason) => {
      clearInterval(keepAlive);
      clearTimeout(connection.expiry);
      connections.delete(connection);
      tally.disconnected();
      // Nothing more can be sent on it: its answers in flight are no longer waited for.
      for (const answered of connection.answering.values()) answered();
      connection.answering.clear();
      void closed(code, String(reason));
    });
  }

  return {
    /** Takes an upgrade of `/graphql` over. */
    upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
      wss.handleUpgrade(request, socket, head, (ws) => accept(ws, request, socket));
    },
    get connections() {
      return connections.size;
    },
    /** Queries and mutations sent over a socket and not answered yet. */
    get answering() {
      return running.size;
    },
    /** SIGTERM: the queries and mutations in flight are answered, then every socket is closed with 1001. */
    async close(waitMs: number): Promise<void> {
      const deadline = new Promise((resolve) => setTimeout(resolve, waitMs).unref());
      await Promise.race([Promise.allSettled([...running]), deadline]);
      // graphql-ws sends each `complete` in the microtasks after its onComplete: let them run first.
      await new Promise((resolve) => setImmediate(resolve));
      for (const { socket } of connections) socket.close(CLOSE_GOING_AWAY, 'Server shutting down');
      await Promise.race([
        Promise.all([...connections].map(({ socket }) => new Promise((resolve) => socket.once('close', resolve)))),
        deadline,
      ]);
      for (const { socket } of connections) socket.terminate();
      wss.close();
    },
  };
}

export type WsTransport = ReturnType<typeof createWsTransport>;
