import { registerBatchRoute } from '../../core/bulk/batch.http.ts';
import type { IdempotencyStore } from '../../core/idempotency/idempotency.store.ts';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../../core/errors/app-error.ts';
import { ifMatchPrecondition } from '../../core/http/caching.ts';
import type { Precondition } from '../../core/precondition.ts';
import type { Post } from './post.ts';
import { PermanentParameter, restoreRouteOptions } from '../history/trash.representation.ts';
import { Id } from '../../core/http/schemas.ts';
import { queriedPaginationOf } from '../../core/querying/list-page.ts';
import type { Embedding } from '../../core/querying/embedding.ts';
import { toPostView } from './posts.presenter.ts';
import {
  CreatePostBody,
  PostCursorList,
  PostByIdQuery,
  PostCursorQuery,
  PostPage,
  PostReadQuery,
  PostView,
  ReplacePostInput,
  UpdatePostInput,
  UserPostsQuery,
} from './posts.schemas.ts';
import { POST_PAGE_RULES, type PostsService, type PostTarget } from './posts.service.ts';
import { includedListAnswer, trashedListAnswer } from '../history/trash-include.ts';
import { pageWindow } from '../../core/pagination.ts';

const UserParams = Type.Object({ userId: Id });
const UserPostParams = Type.Object({ userId: Id, postId: Id });
const PostParams = Type.Object({ postId: Id });
const tags = ['posts'];

/** A write's `If-Match` precondition: compared with the post as `GET /posts/:postId` presents it. */
const ifMatchOf = (request: FastifyRequest, reply: FastifyReply): Precondition<Post> | undefined =>
  ifMatchPrecondition(request, reply, PostView, (post: Post) => toPostView(post, request.apiPrefix));

/** The post a path names: `/posts/{postId}`, or `/users/{userId}/posts/{postId}` (404 unless it is that user's). */
const targetOf = (params: { postId: number; userId?: number }): PostTarget => ({
  id: params.postId,
  authorId: params.userId,
});

const WRITE_CONFIG = { access: 'user', openapi: { ifMatch: true } } as const;

/** REST adapter for posts: each handler is a thin call into the posts service. */
export const postsRoutes: FastifyPluginAsyncTypebox<{
  posts: PostsService;
  embedding: Embedding;
  idempotency: IdempotencyStore;
}> = async (app, { posts, embedding, idempotency }) => {
  // DECISIONS §18: batches of creates over the same service call (authorId defaults to the caller).
  registerBatchRoute(app, {
    resource: 'posts',
    access: 'user',
    batch: posts.batch,
    idempotency,
    schema: PostView,
    view: (post, request) => toPostView(post, request.apiPrefix),
  });
  app.get(
    '/posts',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'List posts, newest first unless sorted, cursor-paginated',
        querystring: PostCursorQuery,
        response: { 200: PostCursorList },
      },
    },
    async (request) => {
      if (request.query.trashed === 'only') {
        const trashed = await posts.listTrashedPosts(request.principal, request.query);
        return {
          data: trashed.items.map((post) => toPostView(post, request.apiPrefix)),
          nextCursor: trashed.nextCursor,
        };
      }
      if (request.query.trashed === 'include') {
        const query = { ...request.query, trashed: undefined };
        const { data, pagination } = await includedListAnswer({
          principal: request.principal,
          resource: 'post',
          cursor: query.cursor,
          limit: pageWindow({ limit: query.limit }, POST_PAGE_RULES).limit,
          live: (cursor) => posts.listPostsByCursor(request.principal, { ...query, cursor }),
          trash: (cursor, limit) => posts.listTrashedPosts(request.principal, { limit, cursor }),
          view: (post: Post) => toPostView(post, request.apiPrefix),
        });
        return { data, nextCursor: pagination.nextCursor };
      }
      const embed = embedding.forRequest('post', request);
      const page = await posts.listPostsByCursor(request.principal, request.query);
      const pagination = request.query.count === undefined ? {} : { pagination: queriedPaginationOf(page) };
      const data = await embed.list(page.items.map((post) => toPostView(post, request.apiPrefix)));
      const { search } = page;
      return {
        data: search ? data.map((post, i) => ({ ...post, _search: search.hits[i] })) : data,
        nextCursor: page.nextCursor,
        ...pagination,
        ...(search && 'suggestion' in search ? { suggestion: search.suggestion } : {}),
      };
    },
  );

  app.get(
    '/posts/:postId',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Read a post (`trashed=include`: in the trash too)',
        params: PostParams,
        querystring: PostByIdQuery,
        response: { 200: PostView },
      },
    },
    async (request) => {
      const embed = embedding.forRequest('post', request);
      const { postId } = request.params;
      const post =
        request.query.trashed === 'include'
          ? await posts.getPostOrTrashed(request.principal, postId)
          : await posts.getPost(request.principal, postId);
      return embed.one(toPostView(post, request.apiPrefix));
    },
  );

  app.post(
    '/posts/:postId/restore',
    restoreRouteOptions({
      access: 'user',
      tags,
      summary: 'Restore a post from the trash, with its comments (an admin or its author)',
      params: PostParams,
      view: PostView,
    }),
    async (request) => toPostView(await posts.restorePost(request.principal, request.params.postId), request.apiPrefix),
  );

  app.get(
    '/users/:userId/posts',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: "List a user's posts, newest first unless sorted",
        params: UserParams,
        querystring: UserPostsQuery,
        response: { 200: PostPage },
      },
    },
    async (request) => {
      const { userId } = request.params;
      const view = (post: Post) => toPostView(post, request.apiPrefix);
      // `cursor` is among the grammar's parameters (listQueryParameters), untyped there.
      const query = request.query as typeof request.query & { cursor?: string };
      const live = { ...query, trashed: undefined, page: undefined, count: 'none' as const };
      const trashedAnswer = await trashedListAnswer(query.trashed, {
        principal: request.principal,
        resource: 'post',
        cursor: query.cursor,
        page: query.page,
        limit: pageWindow({ limit: query.limit }, POST_PAGE_RULES).limit,
        live: (cursor) => posts.listUserPosts(request.principal, userId, { ...live, cursor }),
        trash: (cursor, limit) => posts.listTrashedPosts(request.principal, { limit, cursor, authorId: userId }),
        view,
      });
      if (trashedAnswer) return trashedAnswer;
      const embed = embedding.forRequest('post', request);
      const page = await posts.listUserPosts(request.principal, request.params.userId, request.query);
      const data = page.items.map((post) => toPostView(post, request.apiPrefix));
      return { data: await embed.list(data), pagination: queriedPaginationOf(page) };
    },
  );

  app.post(
    '/users/:userId/posts',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Create a post for a user (that user or an admin)',
        params: UserParams,
        body: CreatePostBody,
        response: { 201: PostView },
      },
    },
    async (request, reply) => {
      const post = await posts.createPost(request.principal, { ...request.body, authorId: request.params.userId });
      const view = toPostView(post, request.apiPrefix);
      return reply.code(201).header('location', view._links.self.href).send(view);
    },
  );

  app.get(
    '/users/:userId/posts/:postId',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Read one post of a user',
        params: UserPostParams,
        querystring: PostReadQuery,
        response: { 200: PostView },
      },
    },
    async (request) => {
      const embed = embedding.forRequest('post', request);
      const { userId, postId } = request.params;
      return embed.one(toPostView(await posts.getUserPost(request.principal, userId, postId), request.apiPrefix));
    },
  );

  for (const [path, params] of [
    ['/posts/:postId', PostParams],
    ['/users/:userId/posts/:postId', UserPostParams],
  ] as const) {
    app.put(
      path,
      {
        config: WRITE_CONFIG,
        schema: {
          tags,
          summary: 'Replace the title and content of a post (its author or an admin)',
          params,
          body: ReplacePostInput,
          response: { 200: PostView },
        },
      },
      async (request, reply) => {
        const post = await posts.replacePost(
          request.principal,
          targetOf(request.params),
          request.body,
          ifMatchOf(request, reply),
        );
        return toPostView(post, request.apiPrefix);
      },
    );

    app.patch(
      path,
      {
        config: WRITE_CONFIG,
        schema: {
          tags,
          summary: 'Update some fields of a post (its author or an admin)',
          params,
          body: UpdatePostInput,
          response: { 200: PostView },
        },
      },
      async (request, reply) => {
        const post = await posts.updatePost(
          request.principal,
          targetOf(request.params),
          request.body,
          ifMatchOf(request, reply),
        );
        return toPostView(post, request.apiPrefix);
      },
    );

    app.delete(
      path,
      {
        config: WRITE_CONFIG,
        schema: {
          tags,
          summary:
            'Move a post to the trash (its author or an admin), or remove it for good (`permanent=true`, admins)',
          params,
          querystring: PermanentParameter,
          response: { 204: Type.Null() },
        },
      },
      async (request, reply) => {
        const deleted = await posts.deletePost(request.principal, targetOf(request.params), ifMatchOf(request, reply), {
          permanent: request.query.permanent,
        });
        if (!deleted) throw AppError.notFound(`Post ${request.params.postId}`);
        return reply.code(204).send(null);
      },
    );
  }
};
