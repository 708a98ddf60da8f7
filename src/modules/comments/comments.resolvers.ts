import { AppError } from '../../core/errors/app-error.ts';
import { toId, withId, type GraphQLContext } from '../../core/resolving/context.ts';
import { byIdArgumentLoader, byIdLoader, type LoaderQuery } from '../../core/resolving/loaders.ts';
import type { MutationAddCommentArgs, MutationDeleteCommentArgs } from '../graphql-types.generated.ts';
import type { Post } from '../posts/post.ts';
import type { PostsService } from '../posts/posts.service.ts';
import type { User } from '../users/user.ts';
import type { UsersService } from '../users/users.service.ts';
import type { Comment } from './comment.ts';
import type { CommentsService } from './comments.service.ts';

/**
 * Comments' relations are read with the batched field that returns them, for all of its comments at
 * once (`readWithList`: no resolver runs per comment). So every field returning a Comment is batched,
 * the root ones included: `comment(id)` reads all the ids of one level in one statement, and
 * `addComment` (mutations run one at a time) is a batch of one.
 */
export function commentsResolvers({
  users,
  posts,
  comments,
}: {
  users: UsersService;
  posts: PostsService;
  comments: CommentsService;
}) {
  return {
    resolvers: {
      Mutation: {
        // False for a comment that does not exist, as deleteUser; the sign-in check still comes first.
        deleteComment: (_: unknown, args: MutationDeleteCommentArgs, ctx: GraphQLContext) =>
          comments.deleteComment(ctx.principal, undefined, toId(args.id)).then(
            () => true,
            (error: unknown) => {
              if (error instanceof AppError && error.code === 'NOT_FOUND') return false;
              throw error;
            },
          ),
      },
    },
    batched: {
      Query: {
        comment: byIdArgumentLoader<Comment>((ids, fields, ctx) =>
          comments.findCommentsByIds(ctx.principal, ids, fields),
        ),
      },
      Mutation: {
        addComment: (queries: LoaderQuery<unknown, MutationAddCommentArgs>[], ctx: GraphQLContext) =>
          Promise.all(
            queries.map(({ params: { input } }) =>
              withId(input.postId, 'Post', (postId) =>
                comments.createComment(ctx.principal, postId, { text: input.text }),
              ),
            ),
          ),
      },
      Comment: {
        author: byIdLoader<Comment, User>(
          (comment) => comment.authorId,
          (ids, fields, ctx) => users.findUsersByIds(ctx.principal, ids, fields),
        ),
        post: byIdLoader<Comment, Post>(
          (comment) => comment.postId,
          (ids, fields) => posts.findPostsByIds(ids, fields),
        ),
      },
    },
    readWithList: ['Comment'],
  };
}
