import type { FastifyInstance } from 'fastify';
import type { TokenVerifier } from '../access/tokens.ts';
import { corsOriginsOf, registerCors, registerSecurityHeaders, registerUrlLengthLimit } from './http-hardening.ts';
import { registerRateLimits, type RateLimiter, type RateLimitSettings } from './rate-limit.ts';

/**
 * The settings security reads, named as in the configuration (src/config/config.ts) so the caller
 * passes its config as is; core does not import config.
 */
export interface SecuritySettings {
  MAX_URL_LENGTH: number;
  CORS_ORIGINS?: string | undefined;
  RATE_LIMIT_MAX: number;
  RATE_LIMIT_WINDOW_MS: number;
  RATE_LIMIT_AUTH_MAX: number;
  RATE_LIMIT_AUTH_WINDOW_MS: number;
  REDIS_URL?: string | undefined;
  RATE_LIMIT_REDIS_PREFIX: string;
}

/**
 * Abuse resistance for every route (docs/SECURITY.md). Call before the access check is registered:
 * these onRequest hooks then run first, so an over-long URL or a spent budget is refused before
 * any other work. Returns the rate limiter, which GraphQL charges an operation's cost to.
 */
export async function registerSecurity(
  app: FastifyInstance,
  config: SecuritySettings,
  verifier: TokenVerifier,
  events: Pick<RateLimitSettings, 'onRejected'> = {},
): Promise<RateLimiter> {
  await registerSecurityHeaders(app);
  registerUrlLengthLimit(app, config.MAX_URL_LENGTH);
  await registerCors(app, corsOriginsOf(config.CORS_ORIGINS));
  return registerRateLimits(
    app,
    {
      max: config.RATE_LIMIT_MAX,
      windowMs: config.RATE_LIMIT_WINDOW_MS,
      authMax: config.RATE_LIMIT_AUTH_MAX,
      authWindowMs: config.RATE_LIMIT_AUTH_WINDOW_MS,
      redisUrl: config.REDIS_URL,
      redisPrefix: config.RATE_LIMIT_REDIS_PREFIX,
      onRejected: events.onRejected,
    },
    verifier,
  );
}
