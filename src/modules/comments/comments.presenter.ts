import type { Comment } from './comment.ts';

/** The REST representation of a comment; it lives under its post, so `self` is the nested path. */
export function toCommentView(comment: Comment, prefix: string) {
  const post = `${prefix}/posts/${comment.postId}`;
  return {
    ...comment,
    _links: {
      self: { href: `${post}/comments/${comment.id}` },
      post: { href: post },
      author: { href: `${prefix}/users/${comment.authorId}` },
      likes: { href: `${prefix}/comments/${comment.id}/likes` },
    },
  };
}
