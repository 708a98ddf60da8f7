import type { Config } from './config/config.ts';
import { createTokenService, type TokenVerifier } from './core/access/tokens.ts';
import { createRightsCheck } from './core/access/rights.ts';
import { createExternalTokenVerifier, createTokenVerifierByAlgorithm } from './core/access/jwks.ts';
import { memoizeTokenVerifier } from './core/hardening/verified-token-memo.ts';
import type { Db } from './core/db/database.ts';
import { createIdempotencyStore } from './core/idempotency/idempotency.store.ts';
import { modules } from './modules/index.ts';
import { buildModuleServices, composeEmbeds } from './modules/module.ts';
import { createEmbedding } from './core/querying/embedding.ts';

/** The composition root of the business layer: every transport (REST, GraphQL, CLI) uses these. */
export function createServices(config: Config, db: Db) {
  const localTokens = createTokenService({
    secret: config.jwtSecret,
    issuer: config.JWT_ISSUER,
    audience: config.JWT_AUDIENCE,
    ttlSeconds: config.JWT_TTL_SECONDS,
  });
  const verifier = createTokenVerifier(config, localTokens);
  const tokens = { issue: localTokens.issue, verify: verifier.verify, verifiedNow: verifier.verifiedNow };
  // Core services first; then each module's, in the order of the module list (modules/index.ts).
  const core = { tokens, idempotency: createIdempotencyStore(db) };
  const moduleServices = buildModuleServices(modules, { db, config, services: core });
  const services = {
    ...core,
    /** A token's rights as the database grants them now (writes and admin tokens, DECISIONS §5). */
    rights: createRightsCheck(moduleServices.users.currentRights),
    ...moduleServices,
  };
  /** `include` of REST reads: each module's relations over the services above (core/querying/embedding.ts). */
  const embedding = createEmbedding(composeEmbeds(modules.map((module) => module.embeds?.(services))));
  return { ...services, embedding };
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
