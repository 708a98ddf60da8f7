import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { REDIS_URL, redisUp } from '../../../test/support/redis.ts';
import { createMemoryStore, createRedisStore, type Count, type CounterStore } from './rate-limit-store.ts';

const add = (store: CounterStore, key: string, weight: number, windowMs: number) =>
  new Promise<Count>((resolve, reject) =>
    store.add(key, weight, windowMs, (error, count) => (count ? resolve(count) : reject(error))),
  );

describe('the in-memory rate-limit counters', () => {
  it('count weights per key in a fixed window and start again when it ends', () => {
    let now = 1_000;
    const store = createMemoryStore(() => now);
    const seen: Count[] = [];
    const record = (_error: Error | null, count?: Count) => seen.push(count!);
    store.add('a', 1, 60_000, record);
    now += 20_000;
    store.add('a', 5, 60_000, record);
    store.add('b', 1, 60_000, record);
    now += 40_000;
    store.add('a', 1, 60_000, record);
    // Called back at once: the limiter decides a request counted here without a promise.
    assert.deepEqual(seen, [
      { current: 1, ttl: 60_000 },
      { current: 6, ttl: 40_000 },
      { current: 1, ttl: 60_000 },
      { current: 1, ttl: 60_000 },
    ]);
  });
});

describe('the Redis rate-limit counters', { skip: !redisUp && `Redis not reachable at ${REDIS_URL}` }, () => {
  const prefix = `content-service-test:store:${randomBytes(6).toString('hex')}:`;
  const redis = redisUp ? new Redis(REDIS_URL) : undefined;
  after(async () => {
    if (!redis) return;
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('count weights per key, shared by every store of the prefix, the window set by the first add', async () => {
    const [one, other] = [createRedisStore(redis!, prefix), createRedisStore(redis!, prefix)];
    const first = await add(one, 'a', 1, 60_000);
    assert.equal(first.current, 1);
    assert.ok(first.ttl > 59_000 && first.ttl <= 60_000, `ttl ${first.ttl}`);
    const second = await add(other, 'a', 5, 60_000);
    assert.equal(second.current, 6);
    assert.ok(second.ttl <= first.ttl);
    assert.equal((await add(one, 'b', 1, 60_000)).current, 1);
  });

  it('start a new window once the key expires', async () => {
    const store = createRedisStore(redis!, prefix);
    await add(store, 'short', 3, 50);
    await new Promise((resolve) => setTimeout(resolve, 120));
    assert.equal((await add(store, 'short', 1, 50)).current, 1);
  });
});
