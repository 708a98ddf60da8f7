import { withId, type GraphQLContext } from '../../core/resolving/context.ts';
import { byIdLoader, listLoader } from '../../core/resolving/loaders.ts';
import type { Comment } from '../comments/comment.ts';
import type { MutationLikeCommentArgs, MutationUnlikeCommentArgs } from '../graphql-types.generated.ts';
import type { User } from '../users/user.ts';
import type { UsersService } from '../users/users.service.ts';
import type { Like } from './like.ts';
import type { LikesService } from './likes.service.ts';

/**
 * GraphQL adapters over the likes service: the same rules as REST. `Comment.likes` takes a page, so it
 * keeps a batched resolver of its own rather than being read with the comments list (batched-resolvers.ts).
 */
export function likesResolvers({ likes, users }: { likes: LikesService; users: UsersService }) {
  return {
    resolvers: {
      Mutation: {
        likeComment: (_: unknown, args: MutationLikeCommentArgs, ctx: GraphQLContext) =>
          withId(args.commentId, 'Comment', (id) => likes.likeComment(ctx.principal, id)).then(({ like }) => like),
        unlikeComment: (_: unknown, args: MutationUnlikeCommentArgs, ctx: GraphQLContext) =>
          withId(args.commentId, 'Comment', (id) => likes.unlikeComment(ctx.principal, id)),
      },
    },
    batched: {
      Comment: {
        likes: listLoader<Comment, Like>(
          (comment) => comment.id,
          (ids, page) => likes.findLikesByCommentIds(ids, page),
        ),
      },
      Like: {
        user: byIdLoader<Like, User>(
          (like) => like.userId,
          (ids, fields, ctx) => users.findUsersByIds(ctx.principal, ids, fields),
        ),
      },
    },
  };
}
