import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildSchema, type GraphQLObjectType } from 'graphql';
import type { FeedEvent } from '../../modules/events/event.ts';
import type { EventHub, HubSubscriber } from './event-hub.ts';
import { MAX_QUEUED_EVENTS, startLiveOperation } from './live-operation.ts';
import { createOperationCache, type PreparedOperation } from '../operation-cache.ts';

const schema = buildSchema(`
  type Query { ok: Boolean }
  type User { id: ID! name: String! email: String! }
  type Subscription { userUpdated(id: ID!): User! }
`);
// As users.resolvers.ts: the service's null for an e-mail the viewer may not see reads "".
(schema.getType('User') as GraphQLObjectType).getFields().email!.resolve = (user: { email: string | null }) =>
  user.email ?? '';
const prepared = createOperationCache({ schema, rules: [] }).prepare(
  'subscription { userUpdated(id: "7") { id name email } }',
  undefined,
) as PreparedOperation;

/** A hub that hands events to its subscribers when the test says so. */
function manualHub() {
  const subscribers = new Set<HubSubscriber>();
  const hub: EventHub = {
    add: (subscriber) => {
      subscribers.add(subscriber);
      return Promise.resolve(() => subscribers.delete(subscriber));
    },
    get size() {
      return subscribers.size;
    },
    stop: () => Promise.resolve(),
  };
  let seq = 0;
  const publish = (name: string) => {
    seq += 1;
    const item: FeedEvent = {
      event: {
        id: `evt_${seq}`,
        type: 'user.updated',
        timestamp: '',
        data: { id: 7, name, email: 'seven@example.com' },
      },
      get json() {
        return JSON.stringify(this.event);
      },
      cursor: '',
      position: { tx: 0, seq },
      resource: 'user:7',
    };
    for (const subscriber of subscribers) subscriber.deliver(item);
  };
  return { hub, publish, subscribers };
}

const viewer = (expiresAt: number, userId = 1) => ({ principal: { userId, role: 'user' as const }, expiresAt });

describe('a live subscription', () => {
  it('sends each event once, in order, resolved for its viewer (e-mail private to others)', async () => {
    const { hub, publish } = manualHub();
    const live = await startLiveOperation({
      schema,
      hub,
      prepared,
      variables: {},
      operationName: undefined,
      viewer: viewer(Date.now() + 60_000),
      logUnexpected: () => {},
      onSlow: () => assert.fail('not slow'),
    });
    publish('a');
    publish('b');
    assert.deepEqual((await live.next()).value, { data: { userUpdated: { id: '7', name: 'a', email: '' } } });
    assert.deepEqual((await live.next()).value, { data: { userUpdated: { id: '7', name: 'b', email: '' } } });
    await live.return(undefined);
    assert.equal(hub.size, 0, 'unregistered at once');
  });

  it('tells the transport when events wait behind the one it sends (onBacklog), and not for a lone event', async () => {
    const { hub, publish } = manualHub();
    let backlog = 0;
    const live = await startLiveOperation({
      schema,
      hub,
      prepared,
      variables: {},
      operationName: undefined,
      viewer: viewer(Date.now() + 60_000),
      logUnexpected: () => {},
      onSlow: () => {},
      onBacklog: () => (backlog += 1),
    });
    for (const name of ['a', 'b', 'c']) publish(name);
    for (let n = 0; n < 3; n += 1) await live.next();
    assert.equal(backlog, 2, 'for a and b: c was the last');
    publish('alone');
    await live.next();
    assert.equal(backlog, 2);
    await live.return(undefined);
  });

  it(`is cut off (onSlow) when ${MAX_QUEUED_EVENTS} events wait for a consumer that does not read, and holds no more`, async () => {
    const { hub, publish } = manualHub();
    let slow = 0;
    const live = await startLiveOperation({
      schema,
      hub,
      prepared,
      variables: {},
      operationName: undefined,
      viewer: viewer(Date.now() + 60_000),
      logUnexpected: () => {},
      onSlow: () => (slow += 1),
    });
    for (let n = 0; n < MAX_QUEUED_EVENTS; n += 1) publish(`n${n}`);
    assert.equal(slow, 0);
    publish('one too many');
    assert.equal(slow, 1);
    assert.equal(hub.size, 0);
    assert.deepEqual(await live.next(), { done: true, value: undefined });
  });

  it("ends with UNAUTHENTICATED at its token's exp and sends nothing after it", async () => {
    const { hub, publish } = manualHub();
    const live = await startLiveOperation({
      schema,
      hub,
      prepared,
      variables: {},
      operationName: undefined,
      viewer: viewer(Date.now() + 100),
      logUnexpected: () => {},
      onSlow: () => {},
    });
    const first = live.next();
    await new Promise((resolve) => setTimeout(resolve, 150));
    publish('after exp');
    const ended = (await first).value as { errors: { extensions: { code: string } }[] };
    assert.equal(ended.errors[0]!.extensions.code, 'UNAUTHENTICATED');
    assert.deepEqual(await live.next(), { done: true, value: undefined });
    assert.equal(hub.size, 0);
  });

  it('is tallied for /metrics as soon as the hub counts it, while the hub still waits for its reader', async () => {
    // The hub counts a subscriber before its reader has found the feed's place (event-hub.ts); a scrape in
    // between read one subscription fewer than the hub held (a flake of the SSE back-pressure suite under load).
    const { hub: inner } = manualHub();
    let counted = 0;
    let ready!: () => void;
    const started = new Promise<void>((resolve) => (ready = resolve));
    const hub: EventHub = {
      add: async (subscriber) => {
        counted += 1;
        await started;
        const remove = await inner.add(subscriber);
        return () => {
          counted -= 1;
          remove();
        };
      },
      get size() {
        return counted;
      },
      stop: () => Promise.resolve(),
    };
    let tallied = 0;
    const tally = {
      connected() {},
      disconnected() {},
      subscribed: () => (tallied += 1),
      unsubscribed: () => (tallied -= 1),
      delivered() {},
      cutOff() {},
    };
    const starting = startLiveOperation({
      schema,
      hub,
      prepared,
      variables: {},
      operationName: undefined,
      viewer: viewer(Date.now() + 60_000),
      logUnexpected: () => {},
      onSlow: () => {},
      tally,
    });
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(hub.size, 1);
    assert.equal(tallied, 1, 'tallied while the hub waits');
    ready();
    const live = await starting;
    await live.return(undefined);
    assert.deepEqual([hub.size, tallied], [0, 0]);
  });
});

describe('payloads shared between subscribers', () => {
  const cache = createOperationCache({ schema, rules: [] });
  const start = (text: string, userId: number) => {
    const { hub, publish } = manualHub();
    return startLiveOperation({
      schema,
      hub,
      prepared: cache.prepare(text, undefined) as PreparedOperation,
      variables: {},
      operationName: undefined,
      viewer: viewer(Date.now() + 60_000, userId),
      logUnexpected: () => {},
      onSlow: () => {},
    }).then((live) => ({ live, publish }));
  };

  it('resolves a document without e-mail once per event for every subscriber, and one with e-mail per subscriber', async () => {
    const flat = [
      await start('subscription { userUpdated(id: "7") { id name } }', 1),
      await start('subscription { userUpdated(id: "7") { id name } }', 2),
    ];
    const withEmail = [
      await start('subscription { userUpdated(id: "7") { id email } }', 7),
      await start('subscription { userUpdated(id: "7") { id email } }', 2),
    ];
    for (const { publish } of [...flat, ...withEmail]) publish('same');
    const [a, b] = await Promise.all(flat.map(({ live }) => live.next()));
    assert.equal(a!.value, b!.value, 'one result object for both');
    const [own, other] = await Promise.all(withEmail.map(({ live }) => live.next()));
    assert.deepEqual(own!.value, { data: { userUpdated: { id: '7', email: 'seven@example.com' } } });
    assert.deepEqual(other!.value, { data: { userUpdated: { id: '7', email: '' } } });
  });
});
