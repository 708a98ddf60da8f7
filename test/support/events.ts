import assert from 'node:assert/strict';
import type { TestServer } from './test-server.ts';

export interface SeenEvent {
  id: string;
  type: string;
  timestamp: string;
  data: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

const followed = new WeakMap<TestServer, { cursor: string | null; seen: number }>();

/**
 * The feed's end: a cursor after every event committed so far (null on an empty feed). On PostgreSQL
 * an event shows in the feed once every older transaction (of the whole server) has ended, so this
 * reads until it has seen as many events as the table holds: call it when no write is under way.
 */
export async function feedEnd(t: TestServer): Promise<string | null> {
  const state = followed.get(t) ?? { cursor: null, seen: 0 };
  const total = await t.server.app.services.events.countEvents();
  const deadline = Date.now() + 10_000;
  while (state.seen < total) {
    assert.ok(Date.now() < deadline, `the feed shows ${state.seen} of ${total} events`);
    const page = await t.request('GET', `/api/events?limit=1000${state.cursor ? `&after=${state.cursor}` : ''}`, {
      token: t.adminToken,
    });
    assert.equal(page.status, 200, page.text);
    state.seen += page.body.data.length;
    state.cursor = page.body.nextCursor;
    if (page.body.data.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
  }
  followed.set(t, state);
  return state.cursor;
}

/**
 * Every event after `after`, waiting until at least `count` are visible (PostgreSQL shows an event once
 * every transaction older than it has ended, a few milliseconds later), then reading a little longer
 * so that an extra one would be seen too.
 */
export async function eventsAfter(
  t: TestServer,
  after: string | null,
  count: number,
  query = '',
): Promise<SeenEvent[]> {
  const seen: SeenEvent[] = [];
  let cursor = after;
  const deadline = Date.now() + 10_000;
  let settle = 0;
  for (;;) {
    const page = await t.request('GET', `/api/events?limit=1000${cursor ? `&after=${cursor}` : ''}${query}`, {
      token: t.adminToken,
    });
    assert.equal(page.status, 200, page.text);
    seen.push(...(page.body.data as SeenEvent[]));
    if (page.body.nextCursor) cursor = page.body.nextCursor;
    if (seen.length >= count) settle += 1;
    if (settle >= 3 || Date.now() > deadline) return seen;
    await new Promise((resolve) => setTimeout(resolve, seen.length >= count ? 20 : 50));
  }
}
