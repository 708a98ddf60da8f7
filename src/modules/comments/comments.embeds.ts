import { relatedById, type EmbedCatalogue } from '../../core/querying/embedding.ts';
import { toPostView } from '../posts/posts.presenter.ts';
import type { PostsService } from '../posts/posts.service.ts';
import { toUserView } from '../users/users.presenter.ts';
import type { UsersService } from '../users/users.service.ts';
import type { toCommentView } from './comments.presenter.ts';

type CommentView = ReturnType<typeof toCommentView>;

/** What `include` embeds of a comment (DECISIONS §12): its author and its post. */
export function commentsEmbeds({ users, posts }: { users: UsersService; posts: PostsService }): EmbedCatalogue {
  return {
    comment: {
      author: relatedById({
        target: 'user',
        keyOf: (comment: CommentView) => comment.authorId,
        readByIds: (ids, { viewer }) => users.findUsersByIds(viewer, ids),
        present: (user, { prefix }) => toUserView(user, prefix),
      }),
      post: relatedById({
        target: 'post',
        keyOf: (comment: CommentView) => comment.postId,
        readByIds: (ids) => posts.findPostsByIds(ids),
        present: (post, { prefix }) => toPostView(post, prefix),
      }),
    },
  };
}
