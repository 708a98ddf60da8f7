import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';

export interface Count {
  /** Requests (or request weights) counted in the current window, this one included. */
  current: number;
  /** Milliseconds until the window resets. */
  ttl: number;
}

/**
 * Fixed-window counters that can add more than one per request (GraphQL operations weigh their cost).
 * `add` calls back at once when the counters are in this process (memory), after the round trip when
 * they are shared (Redis): the limiter has one path for both, and the common request (memory) is
 * counted without a promise.
 */
export interface CounterStore {
  add(key: string, weight: number, windowMs: number, counted: (error: Error | null, count?: Count) => void): void;
}

const MEMORY_MAX_KEYS = 100_000;

/** One process's counters: enough for a single instance (SQLite deployments, tests). */
export function createMemoryStore(now: () => number = Date.now): CounterStore {
  const windows = new Map<string, { count: number; resetAt: number }>();

  function sweep(time: number): void {
    for (const [key, entry] of windows) if (entry.resetAt <= time) windows.delete(key);
    // Still full of live keys: drop the oldest, so memory stays bounded under a flood of addresses.
    while (windows.size >= MEMORY_MAX_KEYS) windows.delete(windows.keys().next().value as string);
  }

  return {
    add(key, weight, windowMs, counted) {
      const time = now();
      let entry = windows.get(key);
      if (!entry || entry.resetAt <= time) {
        if (!entry && windows.size >= MEMORY_MAX_KEYS) sweep(time);
        entry = { count: 0, resetAt: time + windowMs };
        windows.set(key, entry);
      }
      entry.count += weight;
      counted(null, { current: entry.count, ttl: entry.resetAt - time });
    },
  };
}

/** INCRBY and start the window on the first hit, atomically, so every instance shares one budget. */
const ADD_SCRIPT = `
local current = redis.call('INCRBY', KEYS[1], ARGV[2])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {current, ttl}
`;

type RedisWithScript = Redis & {
  rateLimitAdd(key: string, windowMs: number, weight: number): Promise<[number, number]>;
};

/** Counters in Redis, shared by every instance with the same prefix. */
export function createRedisStore(redis: Redis, prefix: string): CounterStore {
  const client = redis as RedisWithScript;
  if (typeof client.rateLimitAdd !== 'function')
    client.defineCommand('rateLimitAdd', { numberOfKeys: 1, lua: ADD_SCRIPT });
  return {
    add(key, weight, windowMs, counted) {
      client.rateLimitAdd(prefix + key, windowMs, weight).then(
        ([current, ttl]) => counted(null, { current: Number(current), ttl: Number(ttl) }),
        (error: Error) => counted(error),
      );
    },
  };
}

/**
 * A Redis client for the counters, closed with the app. Loaded only when configured: a process
 * without Redis would otherwise keep the client and its dependencies' source in its heap for nothing.
 */
export async function connectRedis(app: FastifyInstance, url: string): Promise<Redis> {
  const { Redis } = await import('ioredis');
  // No offline queue and one retry: when Redis is away a request fails open at once instead of waiting.
  const redis = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 2000 });
  let lastWarning = 0;
  redis.on('error', (error) => {
    if (Date.now() - lastWarning < 10_000) return;
    lastWarning = Date.now();
    app.log.warn({ err: error }, 'rate-limit Redis unavailable; limits are not enforced meanwhile');
  });
  app.addHook('onClose', async () => {
    await redis.quit().catch(() => redis.disconnect());
  });
  // Start with the counters reachable when they can be; an unreachable Redis must not stop start-up.
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, 2000).unref();
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    redis.once('ready', done);
    redis.once('error', done);
  });
  return redis;
}
