import type { Redis } from 'ioredis';

export interface Count {
  /** Requests (or request weights) counted in the current window, this one included. */
  current: number;
  /** Milliseconds until the window resets. */
  ttl: number;
}

/**
 * A fixed-window counter that can add more than one per request (GraphQL operations weigh their
 * cost). It also speaks the store contract of @fastify/rate-limit (`incr`, `child`), so the
 * plugin's limiter arithmetic runs on it.
 */
export interface WeightedStore {
  add(key: string, weight: number, windowMs: number): Promise<Count>;
  /** `add` at once, for a store in this process (memory); absent where counting needs a round trip (Redis). */
  addNow?(key: string, weight: number, windowMs: number): Count;
  incr(key: string, callback: (error: Error | null, result?: Count) => void, windowMs: number, max?: number): void;
  child(params: { nameSpace?: string }): WeightedStore;
}

function withPluginContract(add: WeightedStore['add'], namespaced: (nameSpace: string) => WeightedStore, addNow?: WeightedStore['addNow']): WeightedStore {
  const store: WeightedStore = {
    add,
    ...(addNow ? { addNow } : {}),
    // The plugin asks every limiter for a child; without a namespace it shares these counters.
    child: (params) => (params.nameSpace ? namespaced(params.nameSpace) : store),
    incr(key, callback, windowMs) {
      add(key, 1, windowMs).then((count) => callback(null, count), (error: Error) => callback(error));
    },
  };
  return store;
}

const MEMORY_MAX_KEYS = 100_000;

/** One process's counters: enough for a single instance (SQLite deployments, tests). */
export function createMemoryStore(namespace = ''): WeightedStore {
  const windows = new Map<string, { count: number; resetAt: number }>();

  function sweep(now: number): void {
    for (const [key, entry] of windows) if (entry.resetAt <= now) windows.delete(key);
    // Still full of live keys: drop the oldest, so memory stays bounded under a flood of addresses.
    while (windows.size >= MEMORY_MAX_KEYS) windows.delete(windows.keys().next().value as string);
  }

  function addNow(key: string, weight: number, windowMs: number): Count {
    const now = Date.now();
    const id = namespace + key;
    let entry = windows.get(id);
    if (!entry || entry.resetAt <= now) {
      if (!entry && windows.size >= MEMORY_MAX_KEYS) sweep(now);
      entry = { count: 0, resetAt: now + windowMs };
      windows.set(id, entry);
    }
    entry.count += weight;
    return { current: entry.count, ttl: entry.resetAt - now };
  }

  return withPluginContract(
    async (key, weight, windowMs) => addNow(key, weight, windowMs),
    (nameSpace) => createMemoryStore(`${namespace}${nameSpace}:`),
    addNow,
  );
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
export function createRedisStore(redis: Redis, prefix: string): WeightedStore {
  const client = redis as RedisWithScript;
  if (typeof client.rateLimitAdd !== 'function') client.defineCommand('rateLimitAdd', { numberOfKeys: 1, lua: ADD_SCRIPT });

  async function add(key: string, weight: number, windowMs: number): Promise<Count> {
    const [current, ttl] = await client.rateLimitAdd(prefix + key, windowMs, weight);
    return { current: Number(current), ttl: Number(ttl) };
  }

  return withPluginContract(add, (nameSpace) => createRedisStore(redis, `${prefix}${nameSpace}:`));
}
