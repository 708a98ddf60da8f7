import { relatedByParent, type EmbedCatalogue } from '../../core/querying/embedding.ts';
import { toCommentView } from '../comments/comments.presenter.ts';
import type { CommentsService } from '../comments/comments.service.ts';
import { embeddedUser } from '../users/users.embeds.ts';
import type { UsersService } from '../users/users.service.ts';
import type { toPostView } from './posts.presenter.ts';

type PostView = ReturnType<typeof toPostView>;

/**
 * What `include` embeds of a post (DECISIONS §12): its author (the e-mail shown as a direct read of the
 * user shows it) and its first comments, oldest first.
 */
export function postsEmbeds({ users, comments }: { users: UsersService; comments: CommentsService }): EmbedCatalogue {
  return {
    post: {
      author: embeddedUser(users, (post: PostView) => post.authorId),
      comments: relatedByParent({
        target: 'comment',
        keyOf: (post: PostView) => post.id,
        readByParentIds: (ids, limit) => comments.findCommentsByPostIds(ids, { limit }),
        present: (comment, { prefix }) => toCommentView(comment, prefix),
      }),
    },
  };
}
