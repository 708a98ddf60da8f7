import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { EmptyBody, Id } from '../../core/http/schemas.ts';
import { queriedPaginationOf } from '../../core/querying/list-page.ts';
import type { Embedding } from '../../core/querying/embedding.ts';
import { toLikeView } from './likes.presenter.ts';
import { LikePage, LikeReadQuery, LikesQuery, LikeView } from './likes.schemas.ts';
import type { LikesService } from './likes.service.ts';

const CommentParams = Type.Object({ commentId: Id });
const LikeParams = Type.Object({ commentId: Id, userId: Id });
const tags = ['likes'];

/** REST adapter for likes: the caller likes and unlikes as themselves; both are idempotent. */
export const likesRoutes: FastifyPluginAsyncTypebox<{ likes: LikesService; embedding: Embedding }> = async (
  app,
  { likes, embedding },
) => {
  app.get(
    '/comments/:commentId/likes',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'List the likes of a comment, oldest first',
        params: CommentParams,
        querystring: LikesQuery,
        response: { 200: LikePage },
      },
    },
    async (request) => {
      const embed = embedding.forRequest('like', request);
      const page = await likes.listLikes(request.principal, request.params.commentId, request.query);
      const data = page.items.map((like) => toLikeView(like, request.apiPrefix));
      return { data: await embed.list(data), pagination: queriedPaginationOf(page) };
    },
  );

  app.post(
    '/comments/:commentId/likes',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Like a comment as the caller (201 the first time, 200 when already liked)',
        params: CommentParams,
        body: EmptyBody,
        response: { 200: LikeView, 201: LikeView },
      },
    },
    async (request, reply) => {
      const { like, created } = await likes.likeComment(request.principal, request.params.commentId);
      const view = toLikeView(like, request.apiPrefix);
      return reply
        .code(created ? 201 : 200)
        .header('location', view._links.self.href)
        .send(view);
    },
  );

  app.delete(
    '/comments/:commentId/likes',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: "Remove the caller's like (204 also when there was none)",
        params: CommentParams,
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      await likes.unlikeComment(request.principal, request.params.commentId);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/comments/:commentId/likes/:userId',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: "Read one user's like of a comment",
        params: LikeParams,
        querystring: LikeReadQuery,
        response: { 200: LikeView },
      },
    },
    async (request) => {
      const embed = embedding.forRequest('like', request);
      const { commentId, userId } = request.params;
      return embed.one(toLikeView(await likes.getLike(request.principal, commentId, userId), request.apiPrefix));
    },
  );
};
