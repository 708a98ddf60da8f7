import { embedSource, toOne, type EmbedCatalogue } from '../../core/querying/embedding-relations.ts';
import type { Comment } from './comment.ts';
import { toCommentView } from './comments.presenter.ts';
import type { CommentsService } from './comments.service.ts';

type CommentView = ReturnType<typeof toCommentView>;

/**
 * What `include` embeds of a comment (DECISIONS §12): its author and its post. Where a post embeds its
 * comments, the first ones of every post are read in one batch, oldest first, and shown as a direct
 * read of the comment shows them.
 */
export function commentsEmbeds({ comments }: { comments: CommentsService }): EmbedCatalogue {
  return {
    comment: {
      relations: {
        author: toOne('user', (comment: CommentView) => comment.authorId),
        post: toOne('post', (comment: CommentView) => comment.postId),
      },
      source: embedSource<Comment>({
        readByParentIds: { post: (ids, limit) => comments.findCommentsByPostIds(ids, { limit }) },
        present: (comment, { prefix }) => toCommentView(comment, prefix),
      }),
    },
  };
}
