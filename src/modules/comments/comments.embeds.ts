import { relatedById, type EmbedCatalogue } from '../../core/querying/embedding.ts';
import { toPostView } from '../posts/posts.presenter.ts';
import type { PostsService } from '../posts/posts.service.ts';
import { embeddedUser } from '../users/users.embeds.ts';
import type { UsersService } from '../users/users.service.ts';
import type { toCommentView } from './comments.presenter.ts';

type CommentView = ReturnType<typeof toCommentView>;

/** What `include` embeds of a comment (DECISIONS §12): its author and its post. */
export function commentsEmbeds({ users, posts }: { users: UsersService; posts: PostsService }): EmbedCatalogue {
  return {
    comment: {
      author: embeddedUser(users, (comment: CommentView) => comment.authorId),
      post: relatedById({
        target: 'post',
        keyOf: (comment: CommentView) => comment.postId,
        readByIds: (ids) => posts.findPostsByIds(ids),
        present: (post, { prefix }) => toPostView(post, prefix),
      }),
    },
  };
}
