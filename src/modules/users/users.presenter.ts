import type { User } from './user.ts';

/** The REST representation of a user: the domain object plus its links under the request's prefix. */
export function userLinks(prefix: string, id: number) {
  const self = `${prefix}/users/${id}`;
  return {
    self: { href: self },
    posts: { href: `${self}/posts` },
    avatar: { href: `${self}/avatar` },
    update: { href: self, method: 'PATCH' },
    delete: { href: self, method: 'DELETE' },
  };
}

export function toUserView(user: User, prefix: string) {
  return { ...user, _links: userLinks(prefix, user.id) };
}
