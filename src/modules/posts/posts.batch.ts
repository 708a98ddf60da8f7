import type { BatchTarget } from '../../core/bulk/batch.ts';
import type { Principal } from '../../core/access/principal.ts';
import { createChecker } from '../../core/validation/ajv.ts';
import type { Post } from './post.ts';
import { CreatePostInput } from './posts.schemas.ts';

const checkCreate = createChecker(CreatePostInput);

/**
 * Posts in a batch (DECISIONS §18): `create` only until posts have their own update and delete (§19);
 * `authorId` defaults to the caller, and the service lets only admins name another.
 */
export function postsBatchTarget(posts: {
  createPost(actor: Principal | null, raw: unknown): Promise<Post>;
}): BatchTarget<Post> {
  const unsupported = () => Promise.reject(new Error('posts take create only'));
  return {
    resource: 'posts',
    ops: new Set(['create']),
    adminOnly: false,
    checkCreate: (data) => void checkCreate(data),
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
