import rateLimit, { normalizeIP } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import type { TokenVerifier } from '../access/tokens.ts';
import { AppError } from '../errors/app-error.ts';
import { createMemoryStore, createRedisStore, type Count, type WeightedStore } from './rate-limit-store.ts';

export interface RateLimitSettings {
  max: number;
  windowMs: number;
  /** The stricter budget of `POST /api/auth/token`, per client address and email. */
  authMax: number;
  authWindowMs: number;
  redisUrl?: string | undefined;
  redisPrefix: string;
  /** Told of every refusal (the metrics count them); `requests`: the general budget, `token_attempts`: sign-in attempts, `graphql_cost`: an operation's cost. */
  onRejected?: ((limit: 'requests' | 'token_attempts' | 'graphql_cost') => void) | undefined;
}

/** Probes and scrapes are never limited: an orchestrator must always see the truth. */
const EXEMPT_PATHS = new Set(['/healthz', '/readyz', '/metrics']);
const TOKEN_ROUTE = /^\/api(\/v\d+)?\/auth\/token$/;
const BEARER = /^Bearer +(\S+) *$/i;

export interface RateLimiter {
  /** Counts `weight` more units against the request's budget (a GraphQL operation's cost); 429 when spent. */
  charge(request: FastifyRequest, reply: FastifyReply, weight: number): Promise<void>;
}

interface Decision {
  max: number;
  remaining: number;
  resetSeconds: number;
  exceeded: boolean;
}

const KEY = Symbol('rateLimitKey');
type KeyedRequest = FastifyRequest & { [KEY]?: string };

const addressKey = (request: FastifyRequest) => `ip:${normalizeIP(request.ip)}`;
const bearerOf = (request: FastifyRequest) => BEARER.exec(request.headers.authorization ?? '')?.[1];

/**
 * The budget key when it is known without waiting: the client address without a token, the subject
 * of a token verified moments ago (the memo); undefined when the token has yet to be verified.
 */
function budgetKeyNow(request: FastifyRequest, verifier: TokenVerifier): string | undefined {
  const token = bearerOf(request);
  if (!token) return addressKey(request);
  const principal = verifier.verifiedNow?.(token);
  return principal ? `user:${principal.userId}` : undefined;
}

/**
 * The budget key: the verified token subject, else the client address. The token is verified here
 * (memoized, so the access check does not pay twice); a token that does not verify is keyed by
 * address, so forging someone's `sub` cannot spend their budget.
 */
async function budgetKey(request: FastifyRequest, verifier: TokenVerifier): Promise<string> {
  const known = budgetKeyNow(request, verifier);
  if (known !== undefined) return known;
  try {
    return `user:${(await verifier.verify(bearerOf(request)!)).userId}`;
  } catch {
    // Refused again, with its 401, by the access check.
    return addressKey(request);
  }
}

/** @fastify/rate-limit's arithmetic on a count: the same headers and the same refusal either way. */
function decisionOf(max: number, count: Count): Decision {
  return { max, remaining: Math.max(0, max - count.current), resetSeconds: Math.ceil(count.ttl / 1000), exceeded: count.current > max };
}

function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
}

function setHeaders(reply: FastifyReply, decision: Decision): void {
  // The RateLimit header fields draft: limit, remaining, seconds until the window resets.
  reply.header('ratelimit-limit', decision.max);
  reply.header('ratelimit-remaining', decision.remaining);
  reply.header('ratelimit-reset', decision.resetSeconds);
}

function rateLimited(decision: Decision): AppError {
  return new AppError('RATE_LIMITED', `Too many requests; retry in ${decision.resetSeconds} s`, {
    headers: {
      'Retry-After': String(decision.resetSeconds),
      'RateLimit-Limit': String(decision.max),
      'RateLimit-Remaining': '0',
      'RateLimit-Reset': String(decision.resetSeconds),
    },
  });
}

async function connectRedis(app: FastifyInstance, url: string): Promise<Redis> {
  // Loaded only when configured: the client and its dependencies are ~0.5 MB of source a process
  // without Redis would keep in its heap for nothing (bench/RESULTS.md, "Memory").
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

/**
 * Rate limits (DECISIONS §8) on every request, unknown routes and refused tokens included, through
 * @fastify/rate-limit's limiter on a weighted store (memory, or Redis when `REDIS_URL` is set).
 * Runs as an onRequest hook registered before the access check, so a flood is refused before any
 * other work. Returns the limiter so GraphQL can charge an operation's cost.
 */
export async function registerRateLimits(app: FastifyInstance, settings: RateLimitSettings, verifier: TokenVerifier): Promise<RateLimiter> {
  const store: WeightedStore = settings.redisUrl
    ? createRedisStore(await connectRedis(app, settings.redisUrl), settings.redisPrefix)
    : createMemoryStore();
  // The plugin constructs its store itself; hand it ours (a constructor may return an object).
  const storeClass = function SharedStore() {
    return store;
  } as unknown as NonNullable<Parameters<typeof rateLimit>[1]['store']>;
  await app.register(rateLimit, { global: false, store: storeClass, enableDraftSpec: true });

  const general = app.createRateLimit({ max: settings.max, timeWindow: settings.windowMs, keyGenerator: (r) => (r as KeyedRequest)[KEY]! });
  const tokenAttempts = app.createRateLimit({
    max: settings.authMax,
    timeWindow: settings.authWindowMs,
    // Address AND email: guessing one account's password is slow, and one address cannot lock others out.
    keyGenerator: (r) => `token:${normalizeIP(r.ip)}:${emailOf(r.body)}`,
  });

  async function decide(limiter: typeof general, request: FastifyRequest): Promise<Decision | null> {
    try {
      const result = await limiter(request);
      if (result.isAllowed) return null;
      return { max: result.max, remaining: result.remaining, resetSeconds: result.ttlInSeconds, exceeded: result.isExceeded };
    } catch (error) {
      // The shared store is down: serving without limits beats refusing every request.
      request.log.warn({ err: error }, 'rate limit not applied: the counter store failed');
      return null;
    }
  }

  /** Sets the headers of a decision; the refusal to answer with when the budget is spent. */
  function enforce(reply: FastifyReply, decision: Decision, limit: 'requests' | 'graphql_cost'): AppError | undefined {
    setHeaders(reply, decision);
    if (!decision.exceeded) return undefined;
    settings.onRejected?.(limit);
    return rateLimited(decision);
  }

  async function limitByPlugin(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    (request as KeyedRequest)[KEY] = await budgetKey(request, verifier);
    const decision = await decide(general, request);
    const refusal = decision && enforce(reply, decision, 'requests');
    if (refusal) throw refusal;
  }

  // Callback style: with the counters in this process and the token verified moments ago (every
  // request of a client but its first few seconds' first), the request is counted without a promise;
  // that chain of promises through the plugin's limiter was ~10% of a small GET's CPU (bench/RESULTS.md).
  // Otherwise (Redis, a token to verify) through the plugin's limiter, as before.
  const { addNow } = store;
  app.addHook('onRequest', (request, reply, done) => {
    if (EXEMPT_PATHS.has(pathOf(request.url))) return done();
    const key = addNow && budgetKeyNow(request, verifier);
    if (!addNow || key === undefined) return void limitByPlugin(request, reply).then(() => done(), done);
    (request as KeyedRequest)[KEY] = key;
    done(enforce(reply, decisionOf(settings.max, addNow(key, 1, settings.windowMs)), 'requests'));
  });

  // After the body is parsed (the email is in it), before it is validated: malformed attempts count too.
  // Callback style: every other request passes without a promise.
  app.addHook('preValidation', (request, reply, done) => {
    if (request.method !== 'POST' || !TOKEN_ROUTE.test(request.routeOptions.url ?? '')) return done();
    decide(tokenAttempts, request).then((decision) => {
      if (decision) setHeaders(reply, decision);
      if (decision?.exceeded) settings.onRejected?.('token_attempts');
      done(decision?.exceeded ? rateLimited(decision) : undefined);
    }, done);
  });

  return {
    async charge(request, reply, weight) {
      const key = (request as KeyedRequest)[KEY];
      if (!key || weight <= 0) return;
      let count;
      try {
        count = addNow ? addNow(key, weight, settings.windowMs) : await store.add(key, weight, settings.windowMs);
      } catch (error) {
        request.log.warn({ err: error }, 'rate limit not applied: the counter store failed');
        return;
      }
      const refusal = enforce(reply, decisionOf(settings.max, count), 'graphql_cost');
      if (refusal) throw refusal;
    },
  };
}

function emailOf(body: unknown): string {
  const email = (body as { email?: unknown } | null)?.email;
  return typeof email === 'string' ? email.trim().toLowerCase().slice(0, 254) : '';
}
