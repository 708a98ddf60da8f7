import type { Post } from './post.ts';

/** The REST representation of a post: the domain object plus its links under the request's prefix. */
export function postLinks(prefix: string, post: Pick<Post, 'id' | 'authorId'>) {
  const self = `${prefix}/posts/${post.id}`;
  return {
    self: { href: self },
    author: { href: `${prefix}/users/${post.authorId}` },
    comments: { href: `${self}/comments` },
  };
}

export function toPostView(post: Post, prefix: string) {
  return { ...post, _links: postLinks(prefix, post) };
}
