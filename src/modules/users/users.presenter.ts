import { isSelfOrAdmin } from '../../core/access/guards.ts';
import type { Principal } from '../../core/access/principal.ts';
import type { User } from './user.ts';

/**
 * A user's links under the request's prefix. The action links (`update`, `delete`) only for a viewer who
 * may follow them (the user themself or an admin, the service's rule): anyone else would get a 403.
 */
export function userLinks(prefix: string, id: number, viewer: Principal | null) {
  const self = `${prefix}/users/${id}`;
  const links = {
    self: { href: self },
    posts: { href: `${self}/posts` },
    avatar: { href: `${self}/avatar` },
  };
  if (!isSelfOrAdmin(viewer, id)) return links;
  return { ...links, update: { href: self, method: 'PATCH' }, delete: { href: self, method: 'DELETE' } };
}

/** The REST representation of a user as `viewer` sees it: the domain object plus its links. */
export function toUserView(user: User, prefix: string, viewer: Principal | null) {
  return { ...user, _links: userLinks(prefix, user.id, viewer) };
}
