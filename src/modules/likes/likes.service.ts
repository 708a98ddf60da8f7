/**
 * Likes of comments: any signed-in user likes and unlikes as themselves; both are idempotent.
 *
 *   listLikes(actor, commentId, { page?, limit?, sort?, count?, cursor?, ...filters }): Promise<QueriedPage<Like>>
 *       oldest first unless sorted (likes.query.ts); 404 unknown comment
 *   getLike(actor, commentId, userId): Promise<Like>                          404 when that user has not liked it
 *   likeComment(actor, commentId): Promise<{ like: Like; created: boolean }>  created false when already liked
 *   unlikeComment(actor, commentId): Promise<boolean>                         true when a like was removed
 * GraphQL:
 *   findLikesByCommentIds(commentIds, { limit?, offset? }): Promise<Map<number, Like[]>>  one query; every id gets an entry
 */
import { requireSignedIn } from '../../core/access/guards.ts';
import { isAdmin, type Principal } from '../../core/access/principal.ts';
import { now } from '../../core/clock.ts';
import type { Db } from '../../core/db/database.ts';
import { isForeignKeyViolation } from '../../core/db/db-errors.ts';
import { AppError } from '../../core/errors/app-error.ts';
import { pageWindow } from '../../core/pagination.ts';
import type { QueriedPage } from '../../core/querying/list-page.ts';
import { DEFAULT_LIST_SETTINGS, type ListSettings } from '../../core/querying/list-grammar.ts';
import { listRequestOf, parseListQuery, type ListOptions } from '../../core/querying/list-query-parse.ts';
import { findCommentById } from '../comments/comments.reads.ts';
import { noEvents, type EventRecorder } from '../events/event-recorder.ts';
import { toLike, type Like } from './like.ts';
import * as repo from './likes.repository.ts';
import { LIKE_QUERY } from './likes.query.ts';

export const LIKE_PAGE_RULES = { defaultLimit: 20, maxLimit: 100 };

const commentNotFound = (id: number) => AppError.notFound(`Comment ${id}`);

export type LikeEvents = { 'like.created': Like; 'like.deleted': { commentId: number; userId: number } };

export function createLikesService(
  db: Db,
  events: EventRecorder<LikeEvents> = noEvents(),
  lists: ListSettings = DEFAULT_LIST_SETTINGS,
) {
  async function assertCommentExists(commentId: number): Promise<void> {
    if (!(await findCommentById(db, commentId))) throw commentNotFound(commentId);
  }

  return {
    /** A page of the comment's likes by the list's grammar (likes.query.ts): filters, sort, count and cursor. */
    async listLikes(actor: Principal | null, commentId: number, options: ListOptions): Promise<QueriedPage<Like>> {
      requireSignedIn(actor);
      const query = parseListQuery(LIKE_QUERY, listRequestOf(options, { comment_id: commentId }), {
        admin: isAdmin(actor),
        ...lists,
      });
      await assertCommentExists(commentId);
      const page = await repo.readLikePage(db, query, pageWindow(options, LIKE_PAGE_RULES));
      return { ...page, items: page.items.map(toLike) };
    },

    async getLike(actor: Principal | null, commentId: number, userId: number): Promise<Like> {
      requireSignedIn(actor);
      const row = await repo.findLike(db, commentId, userId);
      if (!row) throw AppError.notFound(`Like of comment ${commentId} by user ${userId}`);
      return toLike(row);
    },

    /** Batch loader for `Comment.likes`: one query whatever the number of comments, each oldest first. */
    async findLikesByCommentIds(
      commentIds: readonly number[],
      page: { limit?: number | undefined; offset?: number | undefined } = {},
    ): Promise<Map<number, Like[]>> {
      const unique = [...new Set(commentIds)];
      const window = pageWindow({ limit: page.limit, offset: page.offset ?? 0 }, LIKE_PAGE_RULES);
      const rows = await repo.listLikesOfComments(db, unique, { limit: window.limit, offset: window.offset });
      const byComment = new Map<number, Like[]>(unique.map((id) => [id, []]));
      for (const row of rows) byComment.get(Number(row.comment_id))?.push(toLike(row));
      return byComment;
    },

    /** Liking twice is not an error: the second call reports the existing like with created false. */
    async likeComment(actor: Principal | null, commentId: number): Promise<{ like: Like; created: boolean }> {
      const principal = requireSignedIn(actor);
      await assertCommentExists(commentId);
      // A concurrent unlike may remove the existing row between the insert and the read: try again.
      for (let attempt = 0; attempt < 3; attempt += 1) {
        let inserted;
        try {
          const like = { comment_id: commentId, user_id: principal.userId, created_at: now() };
          inserted = await events.recordWith(db, 'like.created', (trx) => repo.insertLikeIfAbsent(trx, like), toLike);
        } catch (error) {
          // The comment was deleted after the check, or the caller's account no longer exists:
          // say which one is missing.
          if (isForeignKeyViolation(error)) {
            if (!(await findCommentById(db, commentId))) throw commentNotFound(commentId);
            throw AppError.notFound(`User ${principal.userId}`);
          }
          throw error;
        }
        if (inserted) return { like: toLike(inserted), created: true };
        const existing = await repo.findLike(db, commentId, principal.userId);
        if (existing) return { like: toLike(existing), created: false };
      }
      throw AppError.conflict('The like changed concurrently; try again');
    },

    /** Removes the caller's like; removing a like that does not exist is not an error either. */
    async unlikeComment(actor: Principal | null, commentId: number): Promise<boolean> {
      const principal = requireSignedIn(actor);
      await assertCommentExists(commentId);
      const like = { commentId, userId: principal.userId };
      return events.recordWith(
        db,
        'like.deleted',
        (trx) => repo.deleteLike(trx, commentId, principal.userId),
        () => like,
      );
    },
  };
}

export type LikesService = ReturnType<typeof createLikesService>;
