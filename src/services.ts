import type { Config } from './config/config.ts';
import { createTokenService } from './core/auth/tokens.ts';
import type { Db } from './core/db/database.ts';
import { createAuthService } from './modules/auth/auth.service.ts';
import { createUsersService } from './modules/users/users.service.ts';
import { createIdempotencyStore } from './core/idempotency/idempotency.store.ts';
import { createOrdersService } from './modules/orders/orders.service.ts';
import { createCustomersService } from './modules/customers/customers.service.ts';
import { createReportsService } from './modules/reports/reports.service.ts';
import { createProductsService } from './modules/products/products.service.ts';
import { createPostsService } from './modules/posts/posts.service.ts';

/** The composition root of the business layer: every transport (REST, GraphQL, CLI) uses these. */
export function createServices(config: Config, db: Db) {
  const tokens = createTokenService({
    secret: config.jwtSecret,
    issuer: config.JWT_ISSUER,
    audience: config.JWT_AUDIENCE,
    ttlSeconds: config.JWT_TTL_SECONDS,
  });
  return {
    tokens,
    auth: createAuthService(db, tokens),
    users: createUsersService(db),
    idempotency: createIdempotencyStore(db),
    orders: createOrdersService(db, { currency: config.STORE_CURRENCY }),
    customers: createCustomersService(db, { currency: config.STORE_CURRENCY }),
    reports: createReportsService(db, { currency: config.STORE_CURRENCY, leaseMs: config.REPORT_LEASE_MS }),
    products: createProductsService(db),
    posts: createPostsService(db),
  };
}

export type Services = ReturnType<typeof createServices>;
