import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { EventFeed, EventStreamBody, EventStreamQuery, ListEventsQuery } from './events.schemas.ts';
import { sendEventStream } from './events.stream.ts';
import type { EventsService } from './events.service.ts';

const tags = ['events'];
const LastEventId = Type.Object({
  'last-event-id': Type.Optional(
    Type.String({
      maxLength: 200,
      description: 'Resume a stream right after this event (a cursor or an event id); wins over `after`',
    }),
  ),
});

/** REST adapter for the event feed (admin only): a page list and the same as Server-Sent Events. */
export const eventsRoutes: FastifyPluginAsyncTypebox<{ events: EventsService }> = async (app, { events }) => {
  const streams = new Set<() => void>();
  // Open streams would hold `close` until their clients go away: end them first.
  app.addHook('preClose', async () => {
    for (const end of streams) end();
  });

  app.get(
    '/events',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Events in feed order, after a cursor (admin)',
        querystring: ListEventsQuery,
        response: { 200: EventFeed },
      },
    },
    async (request) => {
      const page = await events.listEvents(request.principal, request.query);
      return { data: page.items.map((item) => item.event), nextCursor: page.nextCursor };
    },
  );

  app.get(
    '/events/stream',
    {
      config: { access: 'admin', openapi: { responseMedia: { 200: ['text/event-stream'] }, stream: true } },
      schema: {
        tags,
        summary: 'Events as Server-Sent Events, resumable with Last-Event-ID (admin)',
        querystring: EventStreamQuery,
        headers: LastEventId,
        response: { 200: EventStreamBody },
      },
    },
    async (request, reply) => {
      const feed = await events.checkFeedRequest(request.principal, {
        ...request.query,
        lastEventId: request.headers['last-event-id'],
      });
      // A HEAD (or a cache's check) gets the stream's headers, not a stream that never ends.
      if (request.method === 'HEAD')
        return reply.header('cache-control', 'no-store').type('text/event-stream').send('');
      return sendEventStream(reply, events, feed, streams);
    },
  );
};
