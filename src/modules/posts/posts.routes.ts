import { registerBatchRoute } from '../../core/bulk/batch.http.ts';
import type { IdempotencyStore } from '../../core/idempotency/idempotency.store.ts';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { Id } from '../../core/http/schemas.ts';
import { queriedPaginationOf } from '../../core/querying/list-page.ts';
import type { Embedding } from '../../core/querying/embedding.ts';
import { toPostView } from './posts.presenter.ts';
import {
  CreatePostBody,
  PostCursorList,
  PostCursorQuery,
  PostPage,
  PostReadQuery,
  PostView,
  UserPostsQuery,
} from './posts.schemas.ts';
import type { PostsService } from './posts.service.ts';

const UserParams = Type.Object({ userId: Id });
const UserPostParams = Type.Object({ userId: Id, postId: Id });
const PostParams = Type.Object({ postId: Id });
const tags = ['posts'];

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
        summary: 'Read a post',
        params: PostParams,
        querystring: PostReadQuery,
        response: { 200: PostView },
      },
    },
    async (request) => {
      const embed = embedding.forRequest('post', request);
      return embed.one(toPostView(await posts.getPost(request.principal, request.params.postId), request.apiPrefix));
    },
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
};
