import type { Config } from './config/config.ts';
import { createTokenService, type TokenVerifier } from './core/auth/tokens.ts';
import { createRightsCheck } from './core/auth/rights.ts';
import { createExternalTokenVerifier, createTokenVerifierByAlgorithm } from './core/auth/jwks.ts';
import { memoizeTokenVerifier } from './core/security/verified-token-memo.ts';
import type { Db } from './core/db/database.ts';
import { createAuthService } from './modules/auth/auth.service.ts';
import { createUsersService } from './modules/users/users.service.ts';
import { createIdempotencyStore } from './core/idempotency/idempotency.store.ts';
import { createOrdersService } from './modules/orders/orders.service.ts';
import { createCustomersService } from './modules/customers/customers.service.ts';
import { createReportsService } from './modules/reports/reports.service.ts';
import { createProductsService } from './modules/products/products.service.ts';
import { createPostsService } from './modules/posts/posts.service.ts';
import { createCommentsService } from './modules/comments/comments.service.ts';
import { createLikesService } from './modules/likes/likes.service.ts';
import { createAvatarsService } from './modules/avatars/avatars.service.ts';

/** The composition root of the business layer: every transport (REST, GraphQL, CLI) uses these. */
export function createServices(config: Config, db: Db) {
  const localTokens = createTokenService({
    secret: config.jwtSecret,
    issuer: config.JWT_ISSUER,
    audience: config.JWT_AUDIENCE,
    ttlSeconds: config.JWT_TTL_SECONDS,
  });
  const tokens = { issue: localTokens.issue, verify: createTokenVerifier(config, localTokens).verify };
  const users = createUsersService(db);
  return {
    tokens,
    /** A token's rights as the database grants them now (writes and admin tokens, DECISIONS §5). */
    rights: createRightsCheck(users.currentRights),
    auth: createAuthService(db, tokens),
    users,
    idempotency: createIdempotencyStore(db),
    orders: createOrdersService(db, { currency: config.STORE_CURRENCY, holdMs: config.ORDER_HOLD_MINUTES * 60_000 }),
    customers: createCustomersService(db, { currency: config.STORE_CURRENCY }),
    reports: createReportsService(db, { currency: config.STORE_CURRENCY, leaseMs: config.REPORT_LEASE_MS }),
    products: createProductsService(db),
    posts: createPostsService(db),
    comments: createCommentsService(db),
    likes: createLikesService(db),
    avatars: createAvatarsService(db),
  };
}

export type Services = ReturnType<typeof createServices>;

/** Our own HS256 tokens, plus RS256/ES256 tokens of an external identity provider when one is configured. */
function createTokenVerifier(config: Config, local: TokenVerifier): TokenVerifier {
  const external =
    config.JWT_JWKS_URL || config.JWT_PUBLIC_KEY
      ? createExternalTokenVerifier({
          jwksUrl: config.JWT_JWKS_URL,
          publicKeyPem: config.JWT_PUBLIC_KEY,
          issuer: config.JWT_EXTERNAL_ISSUER ?? config.JWT_ISSUER,
          audience: config.JWT_EXTERNAL_AUDIENCE ?? config.JWT_AUDIENCE,
          timeoutMs: config.JWT_JWKS_TIMEOUT_MS,
          cooldownMs: config.JWT_JWKS_COOLDOWN_MS,
          cacheMaxAgeMs: config.JWT_JWKS_CACHE_MAX_AGE_MS,
        })
      : null;
  return memoizeTokenVerifier(createTokenVerifierByAlgorithm(local, external));
}
