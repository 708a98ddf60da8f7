import type { Principal } from '../../core/access/principal.ts';
import type { Db } from '../../core/db/database.ts';
import { createChecker } from '../../core/validation/ajv.ts';
import type { Post } from '../posts/post.ts';
import { CreatePostInput } from '../posts/posts.schemas.ts';
import type { PostsService } from '../posts/posts.service.ts';
import type { Product } from '../products/product.ts';
import { CreateProductInput, UpdateProductInput } from '../products/products.schemas.ts';
import type { ProductsService } from '../products/products.service.ts';
import { toUser, type User } from '../users/user.ts';
import { findUserByEmail } from '../users/users.reads.ts';
import { CreateUserInput, UpdateUserInput } from '../users/users.schemas.ts';
import type { UsersService } from '../users/users.service.ts';
import type { BatchOp, BatchTarget } from './batch.service.ts';

const checkerOf = (schema: Parameters<typeof createChecker>[0]) => {
  const check = createChecker(schema);
  return (data: unknown) => void check(data);
};
const asIs = (_actor: Principal | null, data: unknown) => data;
const ops = (...names: BatchOp[]) => new Set(names);

/** Products: admin writes (the service checks); upserts match on `sku`. */
export function productsTarget(products: ProductsService): BatchTarget<Product> {
  return {
    resource: 'products',
    ops: ops('create', 'update', 'upsert', 'delete'),
    adminOnly: false,
    checkCreate: checkerOf(CreateProductInput),
    checkUpdate: checkerOf(UpdateProductInput),
    createBody: asIs,
    naturalKey: { field: 'sku', normalize: (sku) => sku, find: (sku) => products.findProductBySku(sku) },
    create: (actor, data) => products.createProduct(actor, data),
    update: (actor, id, data, precondition) => products.updateProduct(actor, id, data, precondition),
    remove: (actor, id, precondition) => products.deleteProduct(actor, id, precondition),
    idOf: (product) => product.id,
  };
}

/** Users: admins only (sign-up stays single); upserts match on `email`, compared as the service stores it. */
export function usersTarget(users: UsersService, db: Db): BatchTarget<User> {
  const normalize = (email: string) => email.toLowerCase();
  return {
    resource: 'users',
    ops: ops('create', 'update', 'upsert', 'delete'),
    adminOnly: true,
    checkCreate: checkerOf(CreateUserInput),
    checkUpdate: checkerOf(UpdateUserInput),
    createBody: asIs,
    naturalKey: {
      field: 'email',
      normalize,
      find: async (email) => {
        const row = await findUserByEmail(db, email);
        return row ? toUser(row) : undefined;
      },
    },
    create: (actor, data) => users.createUser(actor, data),
    update: (actor, id, data, precondition) => users.updateUser(actor, id, data, precondition),
    remove: (actor, id, precondition) => users.deleteUser(actor, id, precondition),
    idOf: (user) => user.id,
  };
}

/**
 * Posts: `create` only until posts have their own update and delete (DECISIONS §19); `authorId`
 * defaults to the caller, and the service lets only admins name another.
 */
export function postsTarget(posts: PostsService): BatchTarget<Post> {
  const unsupported = () => Promise.reject(new Error('posts take create only'));
  return {
    resource: 'posts',
    ops: ops('create'),
    adminOnly: false,
    checkCreate: checkerOf(CreatePostInput),
    checkUpdate: () => {},
    createBody: (actor, data) =>
      data !== null && typeof data === 'object' && !('authorId' in data) && actor
        ? { ...data, authorId: actor.userId }
        : data,
    create: (actor, data) => posts.createPost(actor, data),
    update: unsupported,
    remove: unsupported,
    idOf: (post) => post.id,
  };
}
