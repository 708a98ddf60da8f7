import { writableFieldsOf, type BatchTarget } from '../../core/bulk/batch.ts';
import type { Principal } from '../../core/access/principal.ts';
import type { Precondition } from '../../core/precondition.ts';
import { createChecker } from '../../core/validation/ajv.ts';
import type { Post } from './post.ts';
import { CreatePostInput, UpdatePostInput } from './posts.schemas.ts';

const checkCreate = createChecker(CreatePostInput);
const checkUpdate = createChecker(UpdatePostInput);

/** What a batch needs of the posts service: its single writes. */
interface PostWrites {
  createPost(actor: Principal | null, raw: unknown): Promise<Post>;
  updatePost(
    actor: Principal | null,
    target: { id: number },
    raw: unknown,
    precondition?: Precondition<Post>,
  ): Promise<Post>;
  deletePost(actor: Principal | null, target: { id: number }, precondition?: Precondition<Post>): Promise<boolean>;
}

/**
 * Posts in a batch (DECISIONS §18): create, update and delete as the single requests (the author or an
 * admin); `authorId` defaults to the caller, and the service lets only admins name another. No natural
 * key, so no upsert.
 */
export function postsBatchTarget(posts: PostWrites): BatchTarget<Post> {
  return {
    resource: 'posts',
    ops: new Set(['create', 'update', 'delete']),
    adminOnly: false,
    fields: writableFieldsOf(CreatePostInput, UpdatePostInput),
    checkCreate: (data) => void checkCreate(data),
    checkUpdate: (data) => void checkUpdate(data),
    createBody: (actor, data) =>
      data !== null && typeof data === 'object' && !('authorId' in data) && actor
        ? { ...data, authorId: actor.userId }
        : data,
    create: (actor, data) => posts.createPost(actor, data),
    update: (actor, id, data, precondition) => posts.updatePost(actor, { id }, data, precondition),
    remove: (actor, id, precondition) => posts.deletePost(actor, { id }, precondition),
    idOf: (post) => post.id,
  };
}
