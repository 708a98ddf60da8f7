/**
 * Comments: business rules and permissions, used by REST and GraphQL alike.
 *
 * Stable API (GraphQL resolvers call these; keep the names and shapes):
 *   findCommentsByPostIds(postIds: readonly number[], { limit?, offset? }, fields?): Promise<Map<number, Comment[]>>
 *       one query; oldest first per post; limit default 20, max 100; every post id gets an entry
 * REST:
 *   listPostComments(actor, postId, { page?, limit?, sort?, count?, cursor?, ...filters }): Promise<QueriedPage<Comment>>
 *       oldest first unless sorted (comments.query.ts); 404 unknown post
 *   listComments(actor, { page?, limit?, sort?, count?, cursor?, ...filters }): Promise<QueriedPage<Comment>>
 *       every comment, newest first unless sorted (ALL_COMMENTS_QUERY); any signed-in reader
 *   getPostComment(actor, postId, commentId): Promise<Comment>                   404 when not on that post
 *   createComment(actor, postId, input: unknown {text}): Promise<Comment>        author is the caller
 *   deleteComment(actor, postId, commentId): Promise<void>                       comment author, post author or admin
 *       (postId undefined: the comment's own post, GraphQL's `deleteComment(id)`)
 * GraphQL:
 *   findCommentsByIds(actor, ids, fields?): Promise<Comment[]>                   signed in; any order, missing ids left out
 */
import { requireSignedIn } from '../../core/access/guards.ts';
import { isAdmin, type Principal } from '../../core/access/principal.ts';
import { now } from '../../core/clock.ts';
import { columnsFor } from '../../core/db/columns.ts';
import type { Db } from '../../core/db/database.ts';
import { isForeignKeyViolation } from '../../core/db/db-errors.ts';
import { AppError } from '../../core/errors/app-error.ts';
import { pageWindow } from '../../core/pagination.ts';
import type { QueriedPage } from '../../core/querying/list-page.ts';
import { DEFAULT_LIST_SETTINGS, type ListSettings } from '../../core/querying/list-grammar.ts';
import { listRequestOf, parseListQuery, type ListOptions } from '../../core/querying/list-query-parse.ts';
import { createChecker } from '../../core/validation/ajv.ts';
import { noEvents, type EventRecorder } from '../events/event-recorder.ts';
import { findPostById } from '../posts/posts.reads.ts';
import { COMMENT_COLUMN_OF, toComment, type Comment } from './comment.ts';
import * as repo from './comments.repository.ts';
import { ALL_COMMENTS_QUERY, COMMENT_QUERY } from './comments.query.ts';
import { CreateCommentInput } from './comments.schemas.ts';
import type { CommentRow } from './comments.table.ts';
import type { TrashEvents } from '../history/trash.representation.ts';
import {
  actorOf,
  assertMayPurge,
  createTrash,
  trashActions,
  trashRecordOf,
  type Trash,
  type TrashFields,
} from '../history/trash.ts';

export const COMMENT_PAGE_RULES = { defaultLimit: 20, maxLimit: 100 };

const checkCreate = createChecker<CreateCommentInput>(CreateCommentInput);
const postNotFound = (id: number) => AppError.notFound(`Post ${id}`);
const commentNotFound = (id: number) => AppError.notFound(`Comment ${id}`);

export type CommentEvents = {
  'comment.created': Comment;
  'comment.deleted': { id: number; postId: number };
} & TrashEvents;

export function createCommentsService(
  db: Db,
  events: EventRecorder<CommentEvents> = noEvents(),
  lists: ListSettings = DEFAULT_LIST_SETTINGS,
  trash: Trash = createTrash({ retentionDays: 30 }),
) {
  const trashed = trashActions(trash, 'comment');
  async function assertPostExists(trx: Db, postId: number): Promise<void> {
    if (!(await findPostById(trx, postId))) throw postNotFound(postId);
  }

  return {
    /** A page of the post's comments by the list's grammar (comments.query.ts): filters, sort, count and cursor. */
    async listPostComments(
      actor: Principal | null,
      postId: number,
      options: ListOptions,
    ): Promise<QueriedPage<Comment>> {
      requireSignedIn(actor);
      const query = parseListQuery(COMMENT_QUERY, listRequestOf(options, { post_id: postId }), {
        admin: isAdmin(actor),
        ...lists,
      });
      await assertPostExists(db, postId);
      const page = await repo.readCommentPage(db, query, pageWindow(options, COMMENT_PAGE_RULES));
      return { ...page, items: page.items.map(toComment) };
    },

    /** A page of every comment (DECISIONS §20's `GET /comments`), read as a post's comments are: by anyone signed in. */
    async listComments(actor: Principal | null, options: ListOptions): Promise<QueriedPage<Comment>> {
      requireSignedIn(actor);
      const query = parseListQuery(ALL_COMMENTS_QUERY, listRequestOf(options), { admin: isAdmin(actor), ...lists });
      const page = await repo.readAllCommentsPage(db, query, pageWindow(options, COMMENT_PAGE_RULES));
      return { ...page, items: page.items.map(toComment) };
    },

    async getPostComment(actor: Principal | null, postId: number, commentId: number): Promise<Comment> {
      requireSignedIn(actor);
      const row = await repo.findCommentById(db, commentId);
      if (!row || row.post_id !== postId) throw commentNotFound(commentId);
      return toComment(row);
    },

    /** Any signed-in user comments, always as themselves. */
    async createComment(actor: Principal | null, postId: number, raw: unknown): Promise<Comment> {
      const principal = requireSignedIn(actor);
      const input = checkCreate(raw);
      try {
        const row = await events.recordInsert(
          db,
          'comment.created',
          repo.commentInsert,
          { post_id: postId, author_id: principal.userId, text: input.text, created_at: now() },
          toComment,
        );
        return toComment(row);
      } catch (error) {
        // No such post, or the caller's account no longer exists: the foreign keys decide it in the same
        // statement (no read before the write), and a read after tells which.
        if (isForeignKeyViolation(error)) {
          if (!(await findPostById(db, postId))) throw postNotFound(postId);
          throw AppError.notFound(`User ${principal.userId}`);
        }
        throw error;
      }
    },

    /**
     * The comment's author, the post's author or an admin; 404 when the comment is not on that post
     * (any post when `postId` is undefined: GraphQL names a comment by its id alone).
     */
    async deleteComment(
      actor: Principal | null,
      postId: number | undefined,
      commentId: number,
      options: { permanent?: boolean | undefined } = {},
    ): Promise<void> {
      const principal = requireSignedIn(actor);
      assertMayPurge(principal, options.permanent);
      await events.transaction(db, async (trx) => {
        const comment = await repo.findCommentById(trx, commentId);
        if (!comment || (postId !== undefined && comment.post_id !== postId)) {
          // An admin's permanent delete of a comment in the trash removes it from there.
          const trashedComment = options.permanent ? await trash.findTrashed(trx, 'comment', commentId) : undefined;
          if (trashedComment && (postId === undefined || trashedComment.row.post_id === postId)) {
            await trashed.purge(trx, commentId, trashRecordOf(events, trx));
            return;
          }
          throw commentNotFound(commentId);
        }
        const post = await findPostById(trx, comment.post_id);
        const allowed =
          isAdmin(principal) || comment.author_id === principal.userId || post?.author_id === principal.userId;
        if (!allowed)
          throw AppError.forbidden("Only the comment's author, the post's author or an admin may delete it");
        if (options.permanent) await repo.deleteCommentById(trx, commentId);
        else await trash.moveToTrash(trx, 'comment', commentId, actorOf(principal));
        const deleted = { id: commentId, postId: comment.post_id };
        await events.record(trx, 'comment.deleted', deleted);
        if (options.permanent) await events.record(trx, 'comment.purged', deleted);
      });
    },

    /** `GET /comments/{id}` (`trashed=include`: in the trash too, for an admin or its author). */
    async getComment(
      actor: Principal | null,
      id: number,
      options: { trashed?: 'include' | undefined } = {},
    ): Promise<Comment & Partial<TrashFields>> {
      const principal = requireSignedIn(actor);
      const row = await repo.findCommentById(db, id);
      if (row) return toComment(row);
      if (options.trashed !== 'include') throw commentNotFound(id);
      const found = await trashed.read(db, principal, id);
      return { ...toComment(found.row as CommentRow), ...found.trash };
    },

    /** `POST /comments/{id}/restore`: an admin or its author; back with its likes. */
    async restoreComment(actor: Principal | null, id: number): Promise<Comment> {
      const principal = requireSignedIn(actor);
      return events.transaction(db, async (trx) => {
        const live = (await repo.findCommentById(trx, id)) !== undefined;
        return toComment((await trashed.restore(trx, principal, id, live, trashRecordOf(events, trx))) as CommentRow);
      });
    },

    /**
     * `GET /posts/{id}/comments?trashed=only`: the post's trashed comments; `GET /comments?trashed=only`
     * (no post): every trashed comment. An author sees their own.
     */
    async listTrashedComments(
      actor: Principal | null,
      postId: number | undefined,
      options: { limit?: number | undefined; cursor?: string | undefined },
    ) {
      const principal = requireSignedIn(actor);
      const { limit } = pageWindow({ limit: options.limit }, COMMENT_PAGE_RULES);
      const page = await trashed.list(db, principal, { limit, cursor: options.cursor, parentId: postId });
      return {
        items: page.items.map((item) => ({ ...toComment(item.row as CommentRow), ...item.trash })),
        nextCursor: page.nextCursor,
        limit,
      };
    },

    /** Comments by id in one statement (GraphQL's `comment(id)`): any signed-in user reads them, as REST. */
    async findCommentsByIds(
      actor: Principal | null,
      ids: readonly number[],
      fields?: Iterable<string>,
    ): Promise<Comment[]> {
      requireSignedIn(actor);
      const columns = columnsFor(fields, COMMENT_COLUMN_OF, ['id', 'post_id', 'author_id']);
      return (await repo.findCommentsByIds(db, [...new Set(ids)], columns)).map(toComment);
    },

    /** Batch loader for `Post.comments`: one query whatever the number of posts. */
    async findCommentsByPostIds(
      postIds: readonly number[],
      page: { limit?: number | undefined; offset?: number | undefined } = {},
      fields?: Iterable<string>,
    ): Promise<Map<number, Comment[]>> {
      const unique = [...new Set(postIds)];
      const { limit, offset } = pageWindow({ limit: page.limit, offset: page.offset ?? 0 }, COMMENT_PAGE_RULES);
      // Whatever is asked, the keys `Comment.author` and `Comment.post` follow are read.
      const columns = columnsFor(fields, COMMENT_COLUMN_OF, ['id', 'post_id', 'author_id']);
      const rows = await repo.listCommentsOfPosts(db, unique, { limit, offset }, columns);
      const byPost = new Map<number, Comment[]>(unique.map((id) => [id, []]));
      for (const row of rows) byPost.get(row.post_id)?.push(toComment(row));
      return byPost;
    },
  };
}

export type CommentsService = ReturnType<typeof createCommentsService>;
