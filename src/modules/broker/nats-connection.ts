import type * as JetStream from '@nats-io/jetstream';
import type { PubAck } from '@nats-io/jetstream';
import type * as Transport from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/transport-node';

export interface NatsSettings {
  /** NATS_URL: one server or a comma list. */
  url: string;
  /** NATS_STREAM. */
  stream: string;
  /** The stream's subjects when it has to be created: `<NATS_SUBJECT_PREFIX>.>`. */
  subjects: string[];
  /** NATS_PUBLISH_TIMEOUT_MS: how long a publication waits for its ack, and a connection attempt lasts. */
  timeoutMs: number;
  /** The client's name, seen by the server's monitoring. */
  name: string;
}

export interface OutgoingMessage {
  subject: string;
  payload: string;
  /** Sent as `Nats-Msg-Id`: JetStream drops a second message with the same id within its duplicate window. */
  msgId: string;
  /** More headers: the `traceparent` (and `tracestate`) of the message's span, with tracing on. */
  headers?: Readonly<Record<string, string>> | undefined;
}

/** Thrown instead of publishing while there is no connection: the outbox keeps the events. */
export class BrokerUnavailableError extends Error {}

/**
 * The official client, loaded when the first connection opens: a service without NATS_URL never loads it
 * (its modules held megabytes of the idle heap).
 */
let client: Promise<{ jetStream: typeof JetStream; transport: typeof Transport }> | undefined;
const natsClient = () =>
  (client ??= Promise.all([import('@nats-io/jetstream'), import('@nats-io/transport-node')]).then(
    ([jetStream, transport]) => ({ jetStream, transport }),
  ));

/** A message's own headers in the client's form (`Nats-Msg-Id` is added by the client from `msgID`). */
function natsHeaders(transport: typeof Transport, values: Readonly<Record<string, string>>) {
  const headers = transport.headers();
  for (const [name, value] of Object.entries(values)) headers.set(name, value);
  return headers;
}

/** How long a clean stop may spend flushing before the connection is closed anyway. */
const DRAIN_TIMEOUT_MS = 2000;

/**
 * The publisher's one connection to NATS, opened at the first publication and kept: once it has
 * connected, the client reconnects by itself for ever (`maxReconnectAttempts: -1`), and while it is
 * away every publication fails at once: the outbox, not the client's memory, keeps what is still to be
 * published (a publication the client had buffered as the connection dropped may still reach the
 * stream after it reconnects: `Nats-Msg-Id` makes the re-publication of it a duplicate). The stream
 * is looked up, and created when missing, before the first publication and again after a failed one
 * (someone may have deleted it).
 */
export function createNatsConnection(settings: NatsSettings) {
  let connection: NatsConnection | undefined;
  let opening: Promise<NatsConnection> | undefined;
  let connected = false;
  let streamReady = false;
  let closed = false;

  async function watch(nc: NatsConnection): Promise<void> {
    for await (const status of nc.status()) {
      if (status.type === 'disconnect') connected = false;
      else if (status.type === 'reconnect') connected = true;
    }
  }

  async function open(): Promise<NatsConnection> {
    const { transport } = await natsClient();
    const nc = await transport.connect({
      servers: settings.url.split(','),
      name: settings.name,
      timeout: settings.timeoutMs,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 1000,
      // The client's own option: no Error (and its stack) built ahead of every publication to say where a
      // timeout started (ours always start in the publisher): about half the CPU of an acknowledged
      // publication.
      noAsyncTraces: true,
    });
    if (closed) {
      await nc.close();
      throw new BrokerUnavailableError('NATS connection closed');
    }
    connection = nc;
    connected = true;
    void watch(nc);
    // Closed for good (the server refused us, say): the next publication opens a new connection.
    void nc.closed().then(() => {
      if (connection !== nc) return;
      connection = undefined;
      connected = false;
    });
    return nc;
  }

  async function ensureStream(nc: NatsConnection): Promise<void> {
    const { jetStream } = await natsClient();
    const jsm = await jetStream.jetstreamManager(nc, { timeout: settings.timeoutMs });
    try {
      await jsm.streams.info(settings.stream);
    } catch (error) {
      const notFound =
        error instanceof jetStream.JetStreamApiError && error.code === jetStream.JetStreamApiCodes.StreamNotFound;
      if (!notFound) throw error;
      // Two instances may both find it missing: adding the same configuration twice is no error.
      await jsm.streams.add({ name: settings.stream, subjects: settings.subjects });
    }
    streamReady = true;
  }

  /** The connection, opened if there is none yet; throws BrokerUnavailableError while NATS is away. */
  async function ready(): Promise<NatsConnection> {
    if (closed) throw new BrokerUnavailableError('NATS connection closed');
    if (!connection) {
      opening ??= open().finally(() => {
        opening = undefined;
      });
      try {
        await opening;
      } catch (error) {
        throw new BrokerUnavailableError(`NATS is not reachable: ${(error as Error).message}`, { cause: error });
      }
    }
    if (!connected) throw new BrokerUnavailableError('NATS connection lost; the client is reconnecting');
    if (!streamReady) await ensureStream(connection!);
    return connection!;
  }

  return {
    ready,

    /**
     * Sends every message, each with `Nats-Msg-Id`, and returns their acks in the same order (each
     * settles with JetStream's ack or fails at the timeout). The messages are handed to the client in
     * one synchronous run, so they reach the socket back to back before the client can learn of a
     * dropped connection: what the server receives of them is a prefix, in order, and a later message
     * is never stored while an earlier one was lost (which a re-publication would then put after it).
     */
    async publishInOrder(messages: OutgoingMessage[]): Promise<Array<Promise<PubAck>>> {
      const nc = await ready();
      const { jetStream, transport } = await natsClient();
      const js = jetStream.jetstream(nc);
      const acks = messages.map((message) =>
        js.publish(message.subject, message.payload, {
          msgID: message.msgId,
          timeout: settings.timeoutMs,
          ...(message.headers ? { headers: natsHeaders(transport, message.headers) } : {}),
        }),
      );
      // A failed publication may mean the stream is gone: look it up again before the next one.
      for (const ack of acks) ack.catch(() => (streamReady = false));
      return acks;
    },

    /** Flushes what was sent and closes (bounded), or just closes while disconnected. */
    async close(): Promise<void> {
      closed = true;
      await opening?.catch(() => {});
      const nc = connection;
      if (!nc || nc.isClosed()) return;
      if (!connected) return nc.close();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        nc.drain().catch(() => nc.close()),
        new Promise<void>((resolve) => {
          timer = setTimeout(() => resolve(nc.close()), DRAIN_TIMEOUT_MS);
        }),
      ]).finally(() => clearTimeout(timer));
    },
  };
}

export type NatsBrokerConnection = ReturnType<typeof createNatsConnection>;
