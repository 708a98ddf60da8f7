import { useEffect } from 'react';
import { usePermissions } from 'react-admin';
import { useQueryClient } from '@tanstack/react-query';
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { session } from './session.ts';
import { resourceOfEvent } from './resources.ts';
import type { Me } from './auth-provider.ts';

/**
 * Live lists (DECISIONS §20): an admin's console reads `/api/v2/events/stream` through `fetch` (an
 * EventSource cannot send the bearer token) and refetches the lists of each changed resource, and the
 * event feed. The stream starts at the oldest kept event: events older than the console's start are
 * read past without refetching. Other people's lists refresh when the window regains focus (react-query).
 */
export function LiveRefresh() {
  const { permissions } = usePermissions<Me>();
  const queryClient = useQueryClient();
  const admin = Boolean(permissions?.admin);
  useEffect(() => {
    if (!admin) return;
    const stop = new AbortController();
    const since = Date.now() - 2000;
    let lastId: string | undefined;
    const pending = new Set<string>();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const flush = () => {
      timer = undefined;
      // Lists only: an item open in a form keeps the version it was read at (its save sends that
      // version's ETag, so a change made meanwhile is a 412 and a choice, never overwritten).
      for (const resource of pending)
        void queryClient.invalidateQueries({
          predicate: (query) => query.queryKey[0] === resource && query.queryKey[1] === 'getList',
        });
      pending.clear();
    };
    const follow = async () => {
      while (!stop.signal.aborted) {
        try {
          const query = new URLSearchParams({ limit: '1000', ...(lastId ? { after: lastId } : {}) });
          const response = await fetch(`/api/v2/events/stream?${query.toString()}`, {
            headers: { accept: 'text/event-stream', authorization: `Bearer ${session.token() ?? ''}` },
            signal: stop.signal,
          });
          if (!response.ok || !response.body) throw new Error(`stream ${response.status}`);
          const messages = response.body
            .pipeThrough(new TextDecoderStream())
            .pipeThrough(new EventSourceParserStream());
          for await (const message of messages) {
            if (message.id) lastId = message.id;
            const event = JSON.parse(message.data) as { type: string; timestamp: string };
            if (Date.parse(event.timestamp) < since) continue;
            const resource = resourceOfEvent(event.type);
            if (resource) pending.add(resource);
            pending.add('events');
            timer ??= setTimeout(flush, 250);
          }
        } catch {
          if (stop.signal.aborted) return;
        }
        // Closed or failed (an expired token: the next request asks for the password): try again shortly.
        await new Promise((resolve) => setTimeout(resolve, 3000));
      }
    };
    void follow();
    return () => {
      stop.abort();
      if (timer) clearTimeout(timer);
    };
  }, [admin, queryClient]);
  return null;
}
