import { Redis } from 'ioredis';

/**
 * The Redis the scale-out suites share. Like PostgreSQL (dialects.ts): skipped locally when it is
 * unreachable, a failure in CI (`CI=true`).
 */
export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

async function redisReachable(): Promise<boolean> {
  const redis = new Redis(REDIS_URL, {
    lazyConnect: true,
    connectTimeout: 2000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on('error', () => {});
  try {
    await redis.connect();
    return (await redis.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}

export const redisUp = await redisReachable();
if (!redisUp && process.env.CI === 'true') throw new Error(`Redis is not reachable at ${REDIS_URL}; CI requires it`);
