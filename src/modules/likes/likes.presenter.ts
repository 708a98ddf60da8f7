import type { Like } from './like.ts';

/** The REST representation of a like; a like is identified by its comment and its user. */
export function toLikeView(like: Like, prefix: string) {
  return {
    ...like,
    _links: {
      self: { href: `${prefix}/comments/${like.commentId}/likes/${like.userId}` },
      user: { href: `${prefix}/users/${like.userId}` },
    },
  };
}
