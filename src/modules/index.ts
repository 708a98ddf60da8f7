import { authModule } from './auth/auth.module.ts';
import { avatarsModule } from './avatars/avatars.module.ts';
import { brokerModule } from './broker/broker.module.ts';
import { commentsModule } from './comments/comments.module.ts';
import { customersModule } from './customers/customers.module.ts';
import { eventsModule } from './events/events.module.ts';
import { historyModule } from './history/history.module.ts';
import { likesModule } from './likes/likes.module.ts';
import { meModule } from './me/me.module.ts';
import { ordersModule } from './orders/orders.module.ts';
import { postsModule } from './posts/posts.module.ts';
import { productsModule } from './products/products.module.ts';
import { reportsModule } from './reports/reports.module.ts';
import { usersModule } from './users/users.module.ts';
import { webhooksModule } from './webhooks/webhooks.module.ts';
import { collectEventPayloads } from './events/event-payloads.ts';
import { moduleMigrations } from './module.ts';

/**
 * The module list: the service container (services.ts), the REST routes (app.ts), the workers and
 * the GraphQL schema (graphql/schema.ts, graphql/resolvers.ts) are composed from it. One line per
 * module. The order is the order services are built (a module's `createService` may use only the
 * services listed before it: the compiler checks) and the order routes are registered and GraphQL
 * types are printed in.
 */
export const modules = [
  eventsModule,
  webhooksModule,
  brokerModule,
  authModule,
  usersModule,
  ordersModule,
  customersModule,
  reportsModule,
  productsModule,
  postsModule,
  commentsModule,
  likesModule,
  avatarsModule,
  meModule,
  historyModule,
] as const;

export type Modules = typeof modules;

/** The migrations the listed modules bring (beyond core's history), for the migrator. */
export const migrationsOfModules = moduleMigrations(modules);

/** Each event type's `data` schema, declared by the module of its resource (the documents' `webhooks`). */
export const eventPayloadsOfModules = collectEventPayloads(modules);
