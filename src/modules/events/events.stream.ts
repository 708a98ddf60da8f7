import { PassThrough } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyReply } from 'fastify';
import type { FeedEvent } from './event.ts';
import type { EventsService, FeedRequest } from './events.service.ts';

const message = ({ event, json, cursor }: FeedEvent) => `id: ${cursor}\nevent: ${event.type}\ndata: ${json}\n\n`;

/**
 * Answers with the feed as Server-Sent Events: a stream sent through Fastify (so every hook still
 * marks the answer: version, request id, security headers) that reads the feed from the request's
 * position, writes each event with its cursor as `id`, and polls for more every `pollMs` (the same
 * no-skip read as the page list, so every instance serves every event). A comment is written when
 * nothing was for `heartbeatMs`, so proxies keep the connection and clients see it alive.
 */
export function sendEventStream(
  reply: FastifyReply,
  events: EventsService,
  start: FeedRequest,
  streams: Set<() => void>,
): FastifyReply {
  const { pollMs, heartbeatMs } = events.streamTiming;
  const body = new PassThrough();
  const stop = new AbortController();
  const end = () => stop.abort();
  streams.add(end);
  reply.raw.on('close', end);

  async function write(text: string): Promise<void> {
    if (!body.write(text)) await new Promise((resolve) => body.once('drain', resolve).once('close', resolve));
  }

  async function run(): Promise<void> {
    let request = start;
    let lastWrite = Date.now();
    await write(': connected\n\n');
    while (!stop.signal.aborted) {
      const batch = await events.readFeed(request);
      for (const item of batch) {
        if (stop.signal.aborted) return;
        await write(message(item));
        request = { ...request, after: item.position };
        lastWrite = Date.now();
      }
      if (batch.length === request.limit) continue;
      if (Date.now() - lastWrite >= heartbeatMs) {
        await write(': heartbeat\n\n');
        lastWrite = Date.now();
      }
      await sleep(Math.min(pollMs, heartbeatMs), undefined, { signal: stop.signal }).catch(() => {});
    }
  }

  run()
    .catch((error: unknown) => reply.log.error({ err: error }, 'event stream failed'))
    .finally(() => {
      streams.delete(end);
      body.end();
    });
  return reply
    .header('cache-control', 'no-store')
    .header('x-accel-buffering', 'no')
    .type('text/event-stream; charset=utf-8')
    .send(body);
}
