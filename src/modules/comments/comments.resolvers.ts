import { byIdLoader } from '../../core/resolving/loaders.ts';
import type { Post } from '../posts/post.ts';
import type { PostsService } from '../posts/posts.service.ts';
import type { User } from '../users/user.ts';
import type { UsersService } from '../users/users.service.ts';
import type { Comment } from './comment.ts';

/**
 * Comments are reached only through `Post.comments`; their relations are read with that list, for all
 * of its comments at once (`readWithList`: no resolver runs per comment).
 */
export function commentsResolvers({ users, posts }: { users: UsersService; posts: PostsService }) {
  return {
    resolvers: {},
    batched: {
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
