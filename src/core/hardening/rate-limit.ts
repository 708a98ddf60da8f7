import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { bearerTokenOf } from '../access/bearer.ts';
import type { Principal } from '../access/principal.ts';
import type { TokenVerifier } from '../access/tokens.ts';
import { AppError } from '../errors/app-error.ts';
import { clientNetworkOf } from './client-address.ts';
import {
  connectRedis,
  createMemoryStore,
  createRedisStore,
  type Count,
  type CounterStore,
} from './rate-limit-store.ts';

/** Which budget refused a request: the general one, sign-in attempts, or an operation's cost. */
type LimitName = 'requests' | 'token_attempts' | 'graphql_cost';

export interface RateLimitSettings {
  max: number;
  windowMs: number;
  /** The stricter budget of `POST /api/auth/token`, per client address and email. */
  authMax: number;
  authWindowMs: number;
  redisUrl?: string | undefined;
  redisPrefix: string;
  /** Told of every refusal (the metrics count them). */
  onRejected?: ((limit: LimitName) => void) | undefined;
}

export interface RateLimiter {
  /** Counts `weight` more units against the request's budget (a GraphQL operation's cost); 429 when spent. */
  charge(request: FastifyRequest, reply: FastifyReply, weight: number): Promise<void>;
}

interface Budget {
  name: LimitName;
  max: number;
  windowMs: number;
}

/** Probes and scrapes are never limited: an orchestrator must always see the truth. */
const EXEMPT_PATHS = new Set(['/healthz', '/readyz', '/metrics']);
const TOKEN_ROUTE = /^\/api(\/v\d+)?\/auth\/token$/;

const KEY = Symbol('rateLimitKey');
type KeyedRequest = FastifyRequest & { [KEY]?: string };

function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
}

function emailOf(body: unknown): string {
  const email = (body as { email?: unknown } | null)?.email;
  return typeof email === 'string' ? email.trim().toLowerCase().slice(0, 254) : '';
}

function rateLimited(max: number, resetSeconds: number): AppError {
  return new AppError('RATE_LIMITED', `Too many requests; retry in ${resetSeconds} s`, {
    headers: {
      'Retry-After': String(resetSeconds),
      'RateLimit-Limit': String(max),
      'RateLimit-Remaining': '0',
      'RateLimit-Reset': String(resetSeconds),
    },
  });
}

/** What a request counts: its route's `rateLimitWeight` (an aggregate weighs more than a plain read), else 1. */
function weightOf(request: FastifyRequest): number {
  const weight = request.routeOptions.config?.rateLimitWeight;
  const value = typeof weight === 'function' ? weight(request) : weight;
  return value !== undefined && Number.isFinite(value) && value > 1 ? value : 1;
}

/**
 * Rate limits (DECISIONS §8, docs/SECURITY.md) on every request, unknown routes and refused tokens
 * included: fixed windows per token subject, else per client address, counted in memory or, with
 * `REDIS_URL`, in Redis shared by every instance (rate-limit-store.ts). Runs as an onRequest hook
 * registered before the access check, so a flood is refused before any other work. Returns the
 * limiter, so GraphQL can charge an operation's cost.
 *
 * Ours rather than @fastify/rate-limit: GraphQL charges weights, which its limiter cannot count, and
 * its chain of promises per request showed in a small GET's CPU; with the counters in memory a request
 * is counted here without a promise.
 */
export async function registerRateLimits(
  app: FastifyInstance,
  settings: RateLimitSettings,
  verifier: TokenVerifier,
): Promise<RateLimiter> {
  const store: CounterStore = settings.redisUrl
    ? createRedisStore(await connectRedis(app, settings.redisUrl), settings.redisPrefix)
    : createMemoryStore();
  const requests: Budget = { name: 'requests', max: settings.max, windowMs: settings.windowMs };
  const graphqlCost: Budget = { ...requests, name: 'graphql_cost' };
  const tokenAttempts: Budget = { name: 'token_attempts', max: settings.authMax, windowMs: settings.authWindowMs };

  /** The one rate-limit decision: the RateLimit headers of a count, and the refusal once it passes the budget. */
  function decide(reply: FastifyReply, budget: Budget, count: Count): AppError | undefined {
    const resetSeconds = Math.ceil(count.ttl / 1000);
    // The RateLimit header fields draft: limit, remaining, seconds until the window resets.
    reply.header('ratelimit-limit', budget.max);
    reply.header('ratelimit-remaining', Math.max(0, budget.max - count.current));
    reply.header('ratelimit-reset', resetSeconds);
    if (count.current <= budget.max) return undefined;
    settings.onRejected?.(budget.name);
    return rateLimited(budget.max, resetSeconds);
  }

  /** Counts `weight` against `key` and calls back with the decision: at once in memory, after the round trip in Redis. */
  function spend(
    request: FastifyRequest,
    reply: FastifyReply,
    budget: Budget,
    key: string,
    weight: number,
    done: (refusal?: AppError) => void,
  ): void {
    store.add(key, weight, budget.windowMs, (error, count) => {
      if (count) return done(decide(reply, budget, count));
      // The shared store is down: serving without limits beats refusing every request.
      request.log.warn({ err: error }, 'rate limit not applied: the counter store failed');
      done();
    });
  }

  /**
   * Counts the request against its budget: the verified token's subject, else the client address, so
   * a forged `sub` cannot spend someone else's budget (the access check refuses it with 401 after).
   */
  function spendRequest(
    request: FastifyRequest,
    reply: FastifyReply,
    principal: Principal | null,
    done: (refusal?: AppError) => void,
  ): void {
    const key = principal ? `user:${principal.userId}` : `ip:${clientNetworkOf(request.ip)}`;
    (request as KeyedRequest)[KEY] = key;
    spend(request, reply, requests, key, weightOf(request), done);
  }

  // Callback style: no token, or a token verified moments ago (the memo,
  // core/hardening/verified-token-memo.ts), is keyed at once; only a token to verify waits for it.
  app.addHook('onRequest', (request, reply, done) => {
    if (EXEMPT_PATHS.has(pathOf(request.url))) return done();
    const token = bearerTokenOf(request.headers.authorization);
    if (typeof token !== 'string') return spendRequest(request, reply, null, done);
    const known = verifier.verifiedNow?.(token);
    if (known !== undefined) return spendRequest(request, reply, known, done);
    verifier.verify(token).then(
      (principal) => spendRequest(request, reply, principal, done),
      () => spendRequest(request, reply, null, done),
    );
  });

  // After the body is parsed (the email is in it), before it is validated: malformed attempts count too.
  // Address AND email: guessing one account's password is slow, and one address cannot lock others out.
  app.addHook('preValidation', (request, reply, done) => {
    if (request.method !== 'POST' || !TOKEN_ROUTE.test(request.routeOptions.url ?? '')) return done();
    spend(request, reply, tokenAttempts, `token:${clientNetworkOf(request.ip)}:${emailOf(request.body)}`, 1, done);
  });

  return {
    charge(request, reply, weight) {
      const key = (request as KeyedRequest)[KEY];
      if (!key || weight <= 0) return Promise.resolve();
      return new Promise((resolve, reject) =>
        spend(request, reply, graphqlCost, key, weight, (refusal) => (refusal ? reject(refusal) : resolve())),
      );
    },
  };
}
