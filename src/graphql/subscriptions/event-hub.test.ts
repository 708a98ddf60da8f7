import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FeedEvent, FeedPosition } from '../../modules/events/event.ts';
import type { EventsService, FeedRequest } from '../../modules/events/events.service.ts';
import { createEventHub, type HubSubscriber } from './event-hub.ts';

/** A feed in memory: its head, its events, and how many reads it served. */
function memoryFeed() {
  const items: FeedEvent[] = [];
  let reads = 0;
  const events = {
    feedHead: () => Promise.resolve<FeedPosition>(items.at(-1)?.position ?? { tx: 0, seq: 0 }),
    readFeed: (request: FeedRequest) => {
      reads += 1;
      const after = request.after?.seq ?? 0;
      return Promise.resolve(items.filter((i) => i.position.seq > after).slice(0, request.limit));
    },
  } as unknown as EventsService;
  const append = (type: string, data: Record<string, unknown>) =>
    items.push({
      event: { id: `evt_${items.length + 1}`, type: type as never, timestamp: '', data },
      cursor: '',
      position: { tx: 0, seq: items.length + 1 },
      resource: '',
    });
  return { events, append, reads: () => reads };
}

const collector = (type: string, key: string, value: string | undefined) => {
  const got: string[] = [];
  const subscriber: HubSubscriber = { type, key, value, deliver: (item) => got.push(item.event.id) };
  return { subscriber, got };
};

describe('the per-process feed reader', () => {
  it('starts at the head, hands each event once to the subscribers it matches, and reads once per poll whatever the subscribers', async () => {
    const feed = memoryFeed();
    feed.append('comment.created', { postId: 1 }); // before anyone subscribed: not delivered
    const hub = createEventHub(feed.events, ['comment.created', 'post.created'], 10, (e) => assert.fail(String(e)));
    const many = Array.from({ length: 50 }, () => collector('comment.created', 'postId', '1'));
    const removers = await Promise.all(many.map((c) => hub.add(c.subscriber)));
    const other = collector('comment.created', 'postId', '2');
    const anyPost = collector('post.created', 'authorId', undefined);
    await hub.add(other.subscriber);
    await hub.add(anyPost.subscriber);
    const readsBefore = feed.reads();
    feed.append('comment.created', { postId: 1 });
    feed.append('comment.created', { postId: 2 });
    feed.append('post.created', { authorId: 9 });
    feed.append('comment.created', { postId: 1 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    for (const c of many) assert.deepEqual(c.got, ['evt_2', 'evt_5']);
    assert.deepEqual(other.got, ['evt_3']);
    assert.deepEqual(anyPost.got, ['evt_4']);
    // ~10 polls in 100 ms for 52 subscribers: one reader, not one per subscriber.
    assert.ok(feed.reads() - readsBefore < 30, `${feed.reads() - readsBefore} reads`);
    for (const remove of removers) remove();
    assert.equal(hub.size, 2);
    await hub.stop();
  });
});
