import { setTimeout as sleep } from 'node:timers/promises';
import type { JsMsg } from '@nats-io/jetstream';
import type { TestStream } from './nats.ts';

/**
 * The headers of the message of `stream` whose `Nats-Msg-Id` is `eventId`, waiting for it to be published
 * (rejects after `timeoutMs`): the trace suites read its `traceparent`.
 */
export async function natsHeadersOf(
  stream: TestStream,
  eventId: string,
  timeoutMs = 10_000,
): Promise<Map<string, string>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const info = await stream.jsm.streams.info(stream.stream).catch(() => undefined);
    if (info && info.state.messages > 0) {
      const consumer = await stream.js.consumers.get(stream.stream);
      const batch = await consumer.fetch({ max_messages: info.state.messages, expires: 2000 });
      let seen = 0;
      for await (const message of batch as AsyncIterable<JsMsg>) {
        const headers = message.headers;
        if (headers?.get('Nats-Msg-Id') === eventId)
          return new Map([...headers.keys()].map((name) => [name.toLowerCase(), headers.get(name)]));
        if ((seen += 1) === info.state.messages) break;
      }
    }
    if (Date.now() > deadline) throw new Error(`event ${eventId} was never published to ${stream.stream}`);
    await sleep(100);
  }
}
