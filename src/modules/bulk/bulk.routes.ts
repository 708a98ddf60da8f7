import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { IdempotencyStore } from '../../core/idempotency/idempotency.store.ts';
import { toPostView } from '../posts/posts.presenter.ts';
import { PostView } from '../posts/posts.schemas.ts';
import { toProductView } from '../products/products.presenter.ts';
import { ProductView } from '../products/products.schemas.ts';
import { toUserView } from '../users/users.presenter.ts';
import { UserView } from '../users/users.schemas.ts';
import { batchRoute } from './batch.routes.ts';
import type { BulkService } from './bulk.service.ts';

/** REST adapter of data in bulk (DECISIONS §18): the batch routes of products, users and posts. */
export const bulkRoutes: FastifyPluginAsyncTypebox<{ bulk: BulkService; idempotency: IdempotencyStore }> = async (
  app,
  options,
) => {
  await app.register(
    batchRoute('products', 'admin', (bulk) => bulk.targets.products, {
      schema: ProductView,
      view: (product, request) => toProductView(product, request.apiPrefix, request.apiVersion),
    }),
    options,
  );
  await app.register(
    batchRoute('users', 'admin', (bulk) => bulk.targets.users, {
      schema: UserView,
      view: (user, request) => toUserView(user, request.apiPrefix, request.principal),
    }),
    options,
  );
  await app.register(
    batchRoute('posts', 'user', (bulk) => bulk.targets.posts, {
      schema: PostView,
      view: (post, request) => toPostView(post, request.apiPrefix),
    }),
    options,
  );
};
