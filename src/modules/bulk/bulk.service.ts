import type { Principal } from '../../core/access/principal.ts';
import type { Db } from '../../core/db/database.ts';
import type { PostsService } from '../posts/posts.service.ts';
import type { ProductsService } from '../products/products.service.ts';
import type { UsersService } from '../users/users.service.ts';
import { postsTarget, productsTarget, usersTarget } from './batch-targets.ts';
import { runBatch, type BatchOperation, type BatchTarget, type PreconditionOf } from './batch.service.ts';

export interface BulkDeps {
  products: ProductsService;
  users: UsersService;
  posts: PostsService;
}

/** Data in bulk (DECISIONS §18) over the resources' own services: batches. */
export function createBulkService(db: Db, services: BulkDeps) {
  const targets = {
    products: productsTarget(services.products),
    users: usersTarget(services.users, db),
    posts: postsTarget(services.posts),
  };
  return {
    targets,
    batch<T>(
      actor: Principal | null,
      target: BatchTarget<T>,
      request: { atomic?: boolean | undefined; operations: readonly BatchOperation[] },
      preconditionOf: PreconditionOf<T>,
    ) {
      return runBatch(db, actor, target, request, preconditionOf);
    },
  };
}

export type BulkService = ReturnType<typeof createBulkService>;
