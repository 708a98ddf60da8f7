import type { GraphQLContext } from '../../core/resolving/context.ts';
import type {
  MutationCreateUserArgs,
  MutationDeleteUserArgs,
  MutationUpdateUserArgs,
  QueryUserArgs,
  QueryUsersArgs,
  QueryUsersConnectionArgs,
} from '../graphql-types.generated.ts';
import { nullIfNotFound, pageOf, toId, withId } from '../../core/resolving/context.ts';
import { asGraphqlArguments, connectionOf, graphqlListParameters } from '../../core/querying/list-graphql.ts';
import { listLoader } from '../../core/resolving/loaders.ts';
import type { Post } from '../posts/post.ts';
import type { PostsService } from '../posts/posts.service.ts';
import type { User } from './user.ts';
import { USER_QUERY } from './users.query.ts';
import type { UsersService } from './users.service.ts';

/** GraphQL adapters over the users service: the same rules and permissions as REST. */
export function usersResolvers({ users, posts }: { users: UsersService; posts: PostsService }) {
  return {
    resolvers: {
      Query: {
        user: (_: unknown, args: QueryUserArgs, ctx: GraphQLContext) =>
          nullIfNotFound(() => users.getUser(ctx.principal, toId(args.id))),
        users: (_: unknown, args: QueryUsersArgs, ctx: GraphQLContext) =>
          args.filter || args.orderBy?.length
            ? users.queryUserItems(ctx.principal, {
                ...pageOf(args),
                ...graphqlListParameters(USER_QUERY, args.filter, args.orderBy),
              })
            : users.listUserItems(ctx.principal, pageOf(args)),
        // The REST list without its total: its checks, permissions and cursor; its 422s named as the arguments.
        usersConnection: (_: unknown, args: QueryUsersConnectionArgs, ctx: GraphQLContext) => {
          const { parameters, sort } = graphqlListParameters(USER_QUERY, args.filter, args.orderBy);
          const options = { ...parameters, sort, limit: args.limit ?? undefined, cursor: args.after ?? undefined };
          return users.listUsers(ctx.principal, { ...options, count: 'none' }).then(connectionOf, (error: unknown) => {
            throw asGraphqlArguments(error);
          });
        },
      },
      // The service answers null for an email the caller may not see; the seed types it `String!`.
      User: {
        email: (user: User) => user.email ?? '',
      },
      Mutation: {
        createUser: (_: unknown, args: MutationCreateUserArgs, ctx: GraphQLContext) =>
          users.createUser(ctx.principal, { ...args.input }),
        updateUser: (_: unknown, args: MutationUpdateUserArgs, ctx: GraphQLContext) =>
          withId(args.id, 'User', (id) => users.updateUser(ctx.principal, id, { ...args.input })),
        deleteUser: (_: unknown, args: MutationDeleteUserArgs, ctx: GraphQLContext) =>
          users.deleteUser(ctx.principal, toId(args.id)),
      },
    },
    batched: {
      User: {
        posts: listLoader<User, Post>(
          (user) => user.id,
          (ids, page, fields) => posts.findPostsByAuthorIds(ids, page, fields),
        ),
      },
    },
  };
}
