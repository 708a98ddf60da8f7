/**
 * Posts' changes after creation (DECISIONS §19): edits by the author or an admin, the trash (delete,
 * restore, permanent delete) and reads of trashed posts. Part of the posts service (posts.service.ts).
 */
import { requireSignedIn } from '../../core/access/guards.ts';
import { isAdmin, type Principal } from '../../core/access/principal.ts';
import { now } from '../../core/clock.ts';
import type { Db } from '../../core/db/database.ts';
import { AppError } from '../../core/errors/app-error.ts';
import { pageWindow } from '../../core/pagination.ts';
import type { Precondition } from '../../core/precondition.ts';
import { createChecker } from '../../core/validation/ajv.ts';
import type { EventRecorder } from '../events/event-recorder.ts';
import type { TrashEvents } from '../history/trash.representation.ts';
import {
  actorOf,
  assertMayPurge,
  trashActions,
  trashRecordOf,
  type Trash,
  type TrashFields,
} from '../history/trash.ts';
import { toPost, type Post } from './post.ts';
import * as repo from './posts.repository.ts';
import { ReplacePostInput, UpdatePostInput } from './posts.schemas.ts';
import type { PostRow } from './posts.table.ts';

/** Every post list: default 20, at most 100 (DECISIONS §3 and §6). */
const TRASH_PAGE_RULES = { defaultLimit: 20, maxLimit: 100 };

const checkReplace = createChecker<ReplacePostInput>(ReplacePostInput);
const checkUpdate = createChecker<UpdatePostInput>(UpdatePostInput);
const postNotFound = (id: number) => AppError.notFound(`Post ${id}`);

export type PostEvents = {
  'post.created': Post;
  'post.updated': Post;
  'post.deleted': { id: number };
} & TrashEvents;

/** Which post a write names: by its id, and (the nested REST paths) the author it must belong to. */
export interface PostTarget {
  id: number;
  authorId?: number | undefined;
}

function assertAuthorOrAdmin(principal: Principal, post: PostRow, what: string): void {
  if (!isAdmin(principal) && post.author_id !== principal.userId) {
    throw AppError.forbidden(`Only the post's author or an admin may ${what} it`);
  }
}

export function createPostChanges(db: Db, events: EventRecorder<PostEvents>, trash: Trash) {
  const trashed = trashActions(trash, 'post');

  /** The post as it is (locked), 404 when it is not there or not the named author's, 403 unless the author or an admin. */
  async function lockForWrite(trx: Db, principal: Principal, target: PostTarget, what: string): Promise<PostRow> {
    const current = await repo.lockPostById(trx, target.id);
    if (!current || (target.authorId !== undefined && current.author_id !== target.authorId)) {
      throw postNotFound(target.id);
    }
    assertAuthorOrAdmin(principal, current, what);
    return current;
  }

  async function change(
    actor: Principal | null,
    target: PostTarget,
    changes: UpdatePostInput,
    precondition?: Precondition<Post>,
  ): Promise<Post> {
    const principal = requireSignedIn(actor);
    return events.transaction(db, async (trx) => {
      const current = await lockForWrite(trx, principal, target, 'edit');
      precondition?.(toPost(current));
      const fields = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
      if (Object.keys(fields).length === 0) return toPost(current);
      const row = (await repo.updatePostById(trx, target.id, { ...fields, updated_at: now() })) ?? current;
      await events.record(trx, 'post.updated', toPost(row));
      return toPost(row);
    });
  }

  return {
    /** PUT: title and content both set. The author or an admin. */
    replacePost(actor: Principal | null, target: PostTarget, raw: unknown, precondition?: Precondition<Post>) {
      requireSignedIn(actor);
      return change(actor, target, checkReplace(raw), precondition);
    },

    /** PATCH and GraphQL's `updatePost`: only the fields sent change; `{}` changes nothing. */
    updatePost(actor: Principal | null, target: PostTarget, raw: unknown, precondition?: Precondition<Post>) {
      requireSignedIn(actor);
      return change(actor, target, checkUpdate(raw ?? {}), precondition);
    },

    /**
     * The author or an admin moves the post (with its comments and their likes) to the trash; an admin
     * with `permanent` removes it at once, live or trashed (DECISIONS §19). False when there is no such
     * post (of that author, on the nested path).
     */
    async deletePost(
      actor: Principal | null,
      target: PostTarget,
      precondition?: Precondition<Post>,
      options: { permanent?: boolean | undefined } = {},
    ): Promise<boolean> {
      const principal = requireSignedIn(actor);
      assertMayPurge(principal, options.permanent);
      return events.transaction(db, async (trx) => {
        const record = trashRecordOf(events, trx);
        const current = await repo.lockPostById(trx, target.id);
        if (!current || (target.authorId !== undefined && current.author_id !== target.authorId)) {
          return options.permanent && target.authorId === undefined ? trashed.purge(trx, target.id, record) : false;
        }
        assertAuthorOrAdmin(principal, current, 'delete');
        precondition?.(toPost(current));
        if (options.permanent) await repo.deletePostById(trx, target.id);
        else await trash.moveToTrash(trx, 'post', target.id, actorOf(principal));
        await events.record(trx, 'post.deleted', { id: target.id });
        if (options.permanent) await events.record(trx, 'post.purged', { id: target.id });
        return true;
      });
    },

    /** `POST /posts/{id}/restore`: an admin, or the author; back with its comments and likes. */
    async restorePost(actor: Principal | null, id: number): Promise<Post> {
      const principal = requireSignedIn(actor);
      return events.transaction(db, async (trx) => {
        const live = (await repo.lockPostById(trx, id)) !== undefined;
        const record = trashRecordOf(events, trx);
        return toPost((await trashed.restore(trx, principal, id, live, record)) as PostRow);
      });
    },

    /** `GET /posts/{id}?trashed=include`: the post, live or in the trash (with its trash fields). */
    async getPostOrTrashed(actor: Principal | null, id: number): Promise<Post & Partial<TrashFields>> {
      const principal = requireSignedIn(actor);
      const row = await repo.findPostById(db, id);
      if (row) return toPost(row);
      const found = await trashed.read(db, principal, id);
      return { ...toPost(found.row as PostRow), ...found.trash };
    },

    /** `GET /posts?trashed=only` (and `/users/{id}/posts`'s): the trash, most recently deleted first (an author sees their own). */
    async listTrashedPosts(
      actor: Principal | null,
      options: { limit?: number | undefined; cursor?: string | undefined; authorId?: number | undefined },
    ) {
      const principal = requireSignedIn(actor);
      const { limit } = pageWindow({ limit: options.limit }, TRASH_PAGE_RULES);
      // A post's parent in the trash is its author (`/users/{id}/posts?trashed=`).
      const page = await trashed.list(db, principal, { limit, cursor: options.cursor, parentId: options.authorId });
      return {
        items: page.items.map((item) => ({ ...toPost(item.row as PostRow), ...item.trash })),
        nextCursor: page.nextCursor,
      };
    },
  };
}
