import type { GraphQLResolveInfo } from 'graphql';
import type { GraphQLContext } from '../../core/resolving/context.ts';
import type {
  MutationCreatePostArgs,
  MutationDeletePostArgs,
  MutationUpdatePostArgs,
  PostHighlightsArgs,
  QueryPostArgs,
  QueryPostsArgs,
  QueryPostsConnectionArgs,
} from '../graphql-types.generated.ts';
import { nullIfNotFound, pageOf, toId, withId } from '../../core/resolving/context.ts';
import { highlightsOf, highlightsRequested } from '../../core/resolving/highlights.ts';
import { byIdLoader, listLoader } from '../../core/resolving/loaders.ts';
import { connectionOf, graphqlListParameters } from '../../core/querying/list-graphql.ts';
import type { Comment } from '../comments/comment.ts';
import type { CommentsService } from '../comments/comments.service.ts';
import type { User } from '../users/user.ts';
import type { UsersService } from '../users/users.service.ts';
import type { Post } from './post.ts';
import { POST_QUERY } from './posts.query.ts';
import type { PostsService } from './posts.service.ts';

/**
 * A posts list's author, filter, order and search as the service takes them (the REST list's
 * parameters), with the highlights its items' selection asks for (`highlight`, read with the page).
 */
function listArgumentsOf(
  args: Pick<QueryPostsArgs, 'authorId' | 'filter' | 'orderBy' | 'search'>,
  highlight: string | undefined,
) {
  const { parameters, sort } = graphqlListParameters(POST_QUERY, args.filter, args.orderBy);
  const authorId = args.authorId === undefined || args.authorId === null ? undefined : toId(args.authorId);
  const search = args.search ?? undefined;
  return { parameters, sort, authorId, search, highlight: search === undefined ? undefined : highlight };
}

/** GraphQL adapters over the posts service: the same rules and permissions as REST. */
export function postsResolvers(services: { posts: PostsService; users: UsersService; comments: CommentsService }) {
  const { posts, users, comments } = services;
  return {
    resolvers: {
      Query: {
        post: (_: unknown, args: QueryPostArgs, ctx: GraphQLContext) =>
          nullIfNotFound(() => posts.getPost(ctx.principal, toId(args.id))),
        posts: (_: unknown, args: QueryPostsArgs, ctx: GraphQLContext, info: GraphQLResolveInfo) =>
          posts.listPosts(ctx.principal, { ...pageOf(args), ...listArgumentsOf(args, highlightsRequested(info)) }),
        postsConnection: async (
          _: unknown,
          args: QueryPostsConnectionArgs,
          ctx: GraphQLContext,
          info: GraphQLResolveInfo,
        ) =>
          connectionOf(
            await posts.queryPosts(ctx.principal, {
              limit: args.limit ?? undefined,
              cursor: args.after ?? undefined,
              ...listArgumentsOf(args, highlightsRequested(info, 'nodes')),
            }),
          ),
      },
      Post: {
        highlights: (post: Post & { highlights?: Record<string, string> }, args: PostHighlightsArgs) =>
          highlightsOf(post, args.fields),
      },
      Mutation: {
        createPost: (_: unknown, { input }: MutationCreatePostArgs, ctx: GraphQLContext) =>
          posts.createPost(ctx.principal, { ...input, authorId: toId(input.authorId) || input.authorId }),
        updatePost: (_: unknown, args: MutationUpdatePostArgs, ctx: GraphQLContext) =>
          withId(args.id, 'Post', (id) => posts.updatePost(ctx.principal, { id }, { ...args.input })),
        // False for a post that does not exist, as deleteUser; the sign-in check still comes first.
        deletePost: (_: unknown, args: MutationDeletePostArgs, ctx: GraphQLContext) =>
          posts.deletePost(ctx.principal, { id: toId(args.id) }),
      },
    },
    batched: {
      Post: {
        author: byIdLoader<Post, User>(
          (post) => post.authorId,
          (ids, fields, ctx) => users.findUsersByIds(ctx.principal, ids, fields),
        ),
        comments: listLoader<Post, Comment>(
          (post) => post.id,
          (ids, page, fields) => comments.findCommentsByPostIds(ids, page, fields),
        ),
      },
    },
  };
}
