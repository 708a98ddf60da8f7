import { randomBytes } from 'node:crypto';
import { jetstream, jetstreamManager, type JsMsg } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';

/**
 * The NATS server (with JetStream) the broker suites share. Like PostgreSQL (dialects.ts) and Redis
 * (redis.ts): skipped locally when it is unreachable, a failure in CI (`CI=true`). Each suite gets a
 * stream and a subject prefix of its own (`testStream`), deleted afterwards: the server is shared.
 */
export const NATS_URL = process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';

async function natsReachable(): Promise<boolean> {
  try {
    const nc = await connect({ servers: NATS_URL, timeout: 3000, maxReconnectAttempts: 0 });
    try {
      await (await jetstreamManager(nc)).getAccountInfo();
      return true;
    } finally {
      await nc.close();
    }
  } catch {
    return false;
  }
}

export const natsUp = await natsReachable();
if (!natsUp && process.env.CI === 'true') {
  throw new Error(`NATS with JetStream is not reachable at ${NATS_URL}; CI requires it`);
}
export const natsSkip: string | false = natsUp ? false : `NATS with JetStream not reachable at ${NATS_URL}`;

/** A message as stored in the stream. */
export interface StoredMessage {
  seq: number;
  subject: string;
  msgId: string | undefined;
  body: Record<string, unknown>;
}

/** A stream name and subject prefix of this run's own, and a reader of what the stream holds. */
export async function testStream() {
  const tag = `${process.pid}_${randomBytes(4).toString('hex')}`;
  const stream = `TEST_EVENTS_${tag}`;
  const prefix = `test.${tag}.events`;
  const nc: NatsConnection = await connect({ servers: NATS_URL });
  const jsm = await jetstreamManager(nc);
  return {
    stream,
    prefix,
    env: { NATS_URL, NATS_STREAM: stream, NATS_SUBJECT_PREFIX: prefix },
    jsm,
    js: jetstream(nc),
    /** Every message in the stream, in stream order (none when the stream does not exist). */
    async messages(): Promise<StoredMessage[]> {
      const info = await jsm.streams.info(stream).catch(() => undefined);
      if (!info || info.state.messages === 0) return [];
      const consumer = await jetstream(nc).consumers.get(stream);
      const all: StoredMessage[] = [];
      const batch = await consumer.fetch({ max_messages: info.state.messages, expires: 2000 });
      for await (const message of batch as AsyncIterable<JsMsg>) {
        all.push({
          seq: message.seq,
          subject: message.subject,
          msgId: message.headers?.get('Nats-Msg-Id'),
          body: message.json<Record<string, unknown>>(),
        });
        if (all.length === info.state.messages) break;
      }
      return all;
    },
    async close(): Promise<void> {
      await jsm.streams.delete(stream).catch(() => {});
      await nc.close();
    },
  };
}

export type TestStream = Awaited<ReturnType<typeof testStream>>;
