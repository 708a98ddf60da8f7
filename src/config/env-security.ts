import { Type } from 'typebox';

/**
 * The security settings of the environment (docs/SECURITY.md): external identity providers, rate limits,
 * hardening. A part of `EnvSchema` (env-schema.ts), which spreads these properties in.
 */
export const SecurityEnvSchema = Type.Object({
  JWT_JWKS_URL: Type.Optional(
    Type.String({ pattern: '^https?://.+', description: 'JWKS of an external identity provider (RS256/ES256 tokens)' }),
  ),
  JWT_PUBLIC_KEY: Type.Optional(
    Type.String({
      pattern: '-----BEGIN PUBLIC KEY-----',
      description: 'PEM public key (RSA or P-256) of an external identity provider',
    }),
  ),
  JWT_EXTERNAL_ISSUER: Type.Optional(
    Type.String({ minLength: 1, description: 'iss of external tokens; default JWT_ISSUER' }),
  ),
  JWT_EXTERNAL_AUDIENCE: Type.Optional(
    Type.String({ minLength: 1, description: 'aud of external tokens; default JWT_AUDIENCE' }),
  ),
  JWT_JWKS_TIMEOUT_MS: Type.Integer({ minimum: 50, maximum: 60000, default: 5000 }),
  JWT_JWKS_COOLDOWN_MS: Type.Integer({
    minimum: 0,
    maximum: 3600000,
    default: 30000,
    description: 'Least time between two JWKS fetches caused by unknown key ids',
  }),
  JWT_JWKS_CACHE_MAX_AGE_MS: Type.Integer({ minimum: 1000, maximum: 86400000, default: 600000 }),
  RATE_LIMIT_MAX: Type.Integer({
    minimum: 1,
    default: 1000,
    description: 'Requests per window per token subject, else per client address',
  }),
  RATE_LIMIT_WINDOW_MS: Type.Integer({ minimum: 1000, maximum: 86400000, default: 60000 }),
  RATE_LIMIT_AUTH_MAX: Type.Integer({
    minimum: 1,
    default: 10,
    description: 'POST /api/auth/token attempts per window per client address and email',
  }),
  RATE_LIMIT_AUTH_WINDOW_MS: Type.Integer({ minimum: 1000, maximum: 86400000, default: 60000 }),
  RATE_LIMIT_GRAPHQL_COST_UNIT: Type.Integer({
    minimum: 1,
    default: 100,
    description: 'A GraphQL operation counts as ceil(cost / unit) requests',
  }),
  RATE_LIMIT_REDIS_PREFIX: Type.String({ minLength: 1, default: 'content-service:rate-limit:' }),
  REDIS_URL: Type.Optional(
    Type.String({ pattern: '^rediss?://.+', description: 'Shares rate-limit counters across instances' }),
  ),
  CORS_ORIGINS: Type.Optional(
    Type.String({ description: 'Comma-separated origins allowed to call the API from a browser; none by default' }),
  ),
  TRUST_PROXY: Type.Boolean({
    default: false,
    description: 'Take the client address from X-Forwarded-For (behind a trusted load balancer)',
  }),
  MAX_URL_LENGTH: Type.Integer({ minimum: 256, maximum: 16384, default: 8192 }),
  REQUEST_TIMEOUT_MS: Type.Integer({ minimum: 1000, maximum: 600000, default: 30000 }),
  IMPORT_UPLOAD_TIMEOUT_MS: Type.Integer({
    minimum: 1000,
    maximum: 3600000,
    default: 600000,
    description:
      'How long an import upload may take to arrive (DECISIONS §18): a large file over an ordinary link; every other request keeps REQUEST_TIMEOUT_MS',
  }),
  HEADERS_TIMEOUT_MS: Type.Integer({ minimum: 500, maximum: 600000, default: 10000 }),
});
