import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { Id } from '../../core/http/schemas.ts';
import { queriedPaginationOf } from '../../core/querying/list-page.ts';
import type { Embedding } from '../../core/querying/embedding.ts';
import { toCommentView } from './comments.presenter.ts';
import {
  AllCommentsQuery,
  CommentByIdQuery,
  CommentPage,
  CommentReadQuery,
  CommentsQuery,
  CommentView,
  CreateCommentInput,
} from './comments.schemas.ts';
import { PermanentParameter, restoreRouteOptions } from '../history/trash.representation.ts';
import { COMMENT_PAGE_RULES, type CommentsService } from './comments.service.ts';
import type { Comment } from './comment.ts';
import { trashedListAnswer } from '../history/trash-include.ts';
import { pageWindow } from '../../core/pagination.ts';

const PostParams = Type.Object({ postId: Id });
const CommentParams = Type.Object({ postId: Id, commentId: Id });
const CommentIdParams = Type.Object({ commentId: Id });
const tags = ['comments'];

/** REST adapter for comments: each handler is a thin call into the comments service. */
export const commentsRoutes: FastifyPluginAsyncTypebox<{ comments: CommentsService; embedding: Embedding }> = async (
  app,
  { comments, embedding },
) => {
  app.get(
    '/posts/:postId/comments',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: "List a post's comments, oldest first",
        params: PostParams,
        querystring: CommentsQuery,
        response: { 200: CommentPage },
      },
    },
    async (request) => {
      // `cursor` is among the grammar's parameters (listQueryParameters), untyped there.
      const query = request.query as typeof request.query & { cursor?: string };
      const { postId } = request.params;
      const view = (comment: Comment) => toCommentView(comment, request.apiPrefix);
      const live = { ...query, trashed: undefined, page: undefined, count: 'none' as const };
      const trashedAnswer = await trashedListAnswer(query.trashed, {
        principal: request.principal,
        resource: 'comment',
        cursor: query.cursor,
        page: query.page,
        limit: pageWindow({ limit: query.limit }, COMMENT_PAGE_RULES).limit,
        live: (cursor) => comments.listPostComments(request.principal, postId, { ...live, cursor }),
        trash: (cursor, limit) => comments.listTrashedComments(request.principal, postId, { limit, cursor }),
        view,
      });
      if (trashedAnswer) return trashedAnswer;
      const embed = embedding.forRequest('comment', request);
      const page = await comments.listPostComments(request.principal, request.params.postId, request.query);
      const data = page.items.map((comment) => toCommentView(comment, request.apiPrefix));
      return { data: await embed.list(data), pagination: queriedPaginationOf(page) };
    },
  );

  app.get(
    '/comments',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'List every comment, newest first',
        querystring: AllCommentsQuery,
        response: { 200: CommentPage },
      },
    },
    async (request) => {
      // `cursor` is among the grammar's parameters (listQueryParameters), untyped there.
      const query = request.query as typeof request.query & { cursor?: string };
      const view = (comment: Comment) => toCommentView(comment, request.apiPrefix);
      const live = { ...query, trashed: undefined, page: undefined, count: 'none' as const };
      const trashedAnswer = await trashedListAnswer(query.trashed, {
        principal: request.principal,
        resource: 'comment',
        cursor: query.cursor,
        page: query.page,
        limit: pageWindow({ limit: query.limit }, COMMENT_PAGE_RULES).limit,
        live: (cursor) => comments.listComments(request.principal, { ...live, cursor }),
        trash: (cursor, limit) => comments.listTrashedComments(request.principal, undefined, { limit, cursor }),
        view,
      });
      if (trashedAnswer) return trashedAnswer;
      const embed = embedding.forRequest('comment', request);
      const page = await comments.listComments(request.principal, request.query);
      const data = page.items.map((comment) => toCommentView(comment, request.apiPrefix));
      return { data: await embed.list(data), pagination: queriedPaginationOf(page) };
    },
  );

  app.post(
    '/posts/:postId/comments',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Comment on a post as the caller',
        params: PostParams,
        body: CreateCommentInput,
        response: { 201: CommentView },
      },
    },
    async (request, reply) => {
      const comment = await comments.createComment(request.principal, request.params.postId, request.body);
      const view = toCommentView(comment, request.apiPrefix);
      return reply.code(201).header('location', view._links.self.href).send(view);
    },
  );

  app.get(
    '/posts/:postId/comments/:commentId',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Read one comment of a post',
        params: CommentParams,
        querystring: CommentReadQuery,
        response: { 200: CommentView },
      },
    },
    async (request) => {
      const embed = embedding.forRequest('comment', request);
      const { postId, commentId } = request.params;
      return embed.one(
        toCommentView(await comments.getPostComment(request.principal, postId, commentId), request.apiPrefix),
      );
    },
  );

  app.delete(
    '/posts/:postId/comments/:commentId',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary:
          "Move a comment to the trash (its author, the post's author or an admin), or remove it for good (`permanent=true`, admins)",
        params: CommentParams,
        querystring: PermanentParameter,
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      await comments.deleteComment(request.principal, request.params.postId, request.params.commentId, {
        permanent: request.query.permanent,
      });
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/comments/:commentId',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Read a comment (`trashed=include`: in the trash too)',
        params: CommentIdParams,
        querystring: CommentByIdQuery,
        response: { 200: CommentView },
      },
    },
    async (request) => {
      const embed = embedding.forRequest('comment', request);
      const comment = await comments.getComment(request.principal, request.params.commentId, request.query);
      return embed.one(toCommentView(comment, request.apiPrefix));
    },
  );

  app.post(
    '/comments/:commentId/restore',
    restoreRouteOptions({
      access: 'user',
      tags,
      summary: 'Restore a comment from the trash, with its likes (an admin or its author)',
      params: CommentIdParams,
      view: CommentView,
    }),
    async (request) =>
      toCommentView(await comments.restoreComment(request.principal, request.params.commentId), request.apiPrefix),
  );
};
