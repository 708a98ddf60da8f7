import type { GraphQLContext, ListArgs } from '../../graphql/context.ts';
import { nullIfNotFound, pageOf, toId } from '../../graphql/context.ts';
import { byIdLoader, listLoader } from '../../graphql/loaders.ts';
import type { Comment } from '../comments/comment.ts';
import type { CommentsService } from '../comments/comments.service.ts';
import type { User } from '../users/user.ts';
import type { UsersService } from '../users/users.service.ts';
import type { Post } from './post.ts';
import type { PostsService } from './posts.service.ts';

interface CreatePostArgs {
  input: { title: string; content: string; authorId: string };
}

/** GraphQL adapters over the posts service: the same rules and permissions as REST. */
export function postsResolvers(services: { posts: PostsService; users: UsersService; comments: CommentsService }) {
  const { posts, users, comments } = services;
  return {
    resolvers: {
      Query: {
        post: (_: unknown, args: { id: string }, ctx: GraphQLContext) =>
          nullIfNotFound(() => posts.getPost(ctx.principal, toId(args.id))),
        posts: (_: unknown, args: ListArgs & { authorId?: string | null }, ctx: GraphQLContext) =>
          posts.listPosts(ctx.principal, {
            ...pageOf(args),
            authorId: args.authorId === undefined || args.authorId === null ? undefined : toId(args.authorId),
          }),
      },
      Mutation: {
        createPost: (_: unknown, { input }: CreatePostArgs, ctx: GraphQLContext) =>
          posts.createPost(ctx.principal, { ...input, authorId: toId(input.authorId) || input.authorId }),
      },
    },
    loaders: {
      Post: {
        author: byIdLoader<Post, User>((post) => post.authorId, (ids, fields, ctx) => users.findUsersByIds(ctx.principal, ids, fields)),
        comments: listLoader<Post, Comment>((post) => post.id, (ids, page, fields) => comments.findCommentsByPostIds(ids, page, fields)),
      },
    },
  };
}
