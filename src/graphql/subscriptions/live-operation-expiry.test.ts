import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { buildSchema, type GraphQLObjectType } from 'graphql';
import type { FeedEvent } from '../../modules/events/event.ts';
import type { EventHub, HubSubscriber } from './event-hub.ts';
import { startLiveOperation } from './live-operation.ts';
import { createOperationCache, type PreparedOperation } from '../operation-cache.ts';

const schema = buildSchema(`
  type Query { ok: Boolean }
  type User { id: ID! name: String! }
  type Subscription { userUpdated(id: ID!): User! }
`);

/** The name resolver waits on a gate the test opens: the payload's resolving spans what the test does meanwhile. */
let entered: () => void = () => {};
let gate: Promise<void> = Promise.resolve();
(schema.getType('User') as GraphQLObjectType).getFields().name!.resolve = async (user: { name: string }) => {
  entered();
  await gate;
  return user.name;
};

/** A hub with one subscriber at most, fed by the test. */
function oneSubscriberHub() {
  let subscriber: HubSubscriber | undefined;
  const hub: EventHub = {
    add: (s) => {
      subscriber = s;
      return Promise.resolve(() => (subscriber = undefined));
    },
    get size() {
      return subscriber ? 1 : 0;
    },
    stop: () => Promise.resolve(),
  };
  const publish = (name: string) => {
    const item: FeedEvent = {
      event: { id: `evt_${name}`, type: 'user.updated', timestamp: '', data: { id: 7, name } },
      get json() {
        return JSON.stringify(this.event);
      },
      cursor: '',
      position: { tx: 0, seq: 1 },
      resource: 'user:7',
    };
    subscriber?.deliver(item);
  };
  return { hub, publish };
}

describe("a live subscription's payload resolved across its token's exp", () => {
  // The clock is the test's: exp passes exactly while the payload resolves, however loaded the machine.
  beforeEach(() => mock.timers.enable({ apis: ['Date', 'setTimeout'], now: 1_000_000 }));
  afterEach(() => mock.timers.reset());

  for (const timerFired of [true, false])
    it(`is not sent: the subscription ends with UNAUTHENTICATED instead (the expiry timer ${timerFired ? 'fired' : 'late'})`, async () => {
      const { hub, publish } = oneSubscriberHub();
      const expiresAt = Date.now() + 60_000;
      const live = await startLiveOperation({
        schema,
        hub,
        prepared: createOperationCache({ schema, rules: [] }).prepare(
          'subscription { userUpdated(id: "7") { id name } }',
          undefined,
        ) as PreparedOperation,
        variables: {},
        operationName: undefined,
        viewer: { principal: { userId: 1, role: 'user' }, expiresAt },
        logUnexpected: () => {},
        onSlow: () => assert.fail('not slow'),
      });
      let open: () => void = () => {};
      gate = new Promise((resolve) => (open = resolve));
      const resolving = new Promise<void>((resolve) => (entered = resolve));
      publish('before exp');
      const first = live.next();
      await resolving; // taken from the queue before exp, its payload not resolved yet
      // exp passes: with the timer (a calm machine) or without it (a loaded one, its timer not run yet).
      if (timerFired) mock.timers.tick(60_000);
      else mock.timers.setTime(expiresAt);
      open();
      const value = (await first).value as { data?: unknown; errors?: { extensions: { code: string } }[] };
      assert.equal(value.data, undefined, 'the payload resolved across exp is not sent');
      assert.equal(value.errors?.[0]?.extensions.code, 'UNAUTHENTICATED');
      assert.deepEqual(await live.next(), { done: true, value: undefined });
      assert.equal(hub.size, 0, 'unregistered');
    });
});
