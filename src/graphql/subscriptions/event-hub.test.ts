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
    readFeed: async (request: FeedRequest) => {
      reads += 1;
      // A read is I/O: it ends in a later turn of the event loop, as a database's does.
      await new Promise((resolve) => setImmediate(resolve));
      const after = request.after?.seq ?? 0;
      return items.filter((i) => i.position.seq > after).slice(0, request.limit);
    },
  } as unknown as EventsService;
  const append = (type: string, data: Record<string, unknown>) =>
    items.push({
      event: { id: `evt_${items.length + 1}`, type: type as never, timestamp: '', data },
      get json() {
        return JSON.stringify(this.event);
      },
      cursor: '',
      position: { tx: 0, seq: items.length + 1 },
      resource: '',
    });
  return { events, append, reads: () => reads };
}

async function until(done: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!done()) {
    if (Date.now() > deadline) assert.fail(`waited 10 s for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
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
    const hub = createEventHub(feed.events, ['comment.created', 'post.created'], { pollMs: 10 }, (e) =>
      assert.fail(String(e)),
    );
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
    // Waits for the last event to arrive rather than for a fixed time, so a loaded machine cannot fail it.
    await until(() => many.every((c) => c.got.length >= 2) && anyPost.got.length >= 1, 'the events');
    for (const c of many) assert.deepEqual(c.got, ['evt_2', 'evt_5']);
    assert.deepEqual(other.got, ['evt_3']);
    assert.deepEqual(anyPost.got, ['evt_4']);
    // One reader, not one per subscriber: 52 subscribers would make 52 reads a poll.
    assert.ok(feed.reads() - readsBefore < 30, `${feed.reads() - readsBefore} reads`);
    for (const remove of removers) remove();
    assert.equal(hub.size, 2);
    await hub.stop();
  });

  it('reads right after a commit of its own process instead of waiting for the poll, and misses no commit made during a read', async () => {
    const feed = memoryFeed();
    let nudge = () => {};
    let watching = 0;
    const watchCommits = (wake: () => void) => {
      nudge = wake;
      watching += 1;
      return () => (watching -= 1);
    };
    // A poll far longer than the test: only the nudges can bring the events.
    const hub = createEventHub(feed.events, ['comment.created'], { pollMs: 60_000, watchCommits, minGapMs: 1 }, (e) =>
      assert.fail(String(e)),
    );
    const c = collector('comment.created', 'postId', '1');
    const remove = await hub.add(c.subscriber);
    assert.equal(watching, 1);
    feed.append('comment.created', { postId: 1 });
    nudge();
    await until(() => c.got.length === 1, 'the first event after its commit');
    // A commit during a read: the read began before the event was in the feed, so one more read must follow.
    const readFeed = feed.events.readFeed.bind(feed.events);
    let appendDuringRead = true;
    feed.events.readFeed = async (request) => {
      const page = await readFeed(request);
      if (appendDuringRead) {
        appendDuringRead = false;
        feed.append('comment.created', { postId: 1 });
        nudge();
      }
      return page;
    };
    nudge();
    await until(() => c.got.length === 2, 'the event committed during a read');
    assert.deepEqual(c.got, ['evt_1', 'evt_2']);
    remove();
    await hub.stop();
    assert.equal(watching, 0, 'no commits are watched once nobody subscribes');
  });

  it('reads at most once per least gap however many commits nudge it', async () => {
    const feed = memoryFeed();
    let nudge = () => {};
    const watchCommits = (wake: () => void) => {
      nudge = wake;
      return () => {};
    };
    const hub = createEventHub(feed.events, ['comment.created'], { pollMs: 60_000, watchCommits, minGapMs: 20 }, (e) =>
      assert.fail(String(e)),
    );
    const remove = await hub.add(collector('comment.created', 'postId', '1').subscriber);
    const before = feed.reads();
    const began = Date.now();
    const nudging = setInterval(() => nudge(), 1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    clearInterval(nudging);
    const reads = feed.reads() - before;
    const most = Math.ceil((Date.now() - began) / 20) + 1;
    assert.ok(reads >= 2 && reads <= most, `${reads} reads in ${Date.now() - began} ms (at most ${most})`);
    remove();
    await hub.stop();
  });
});
