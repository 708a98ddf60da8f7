import { requireSignedIn } from '../../core/access/guards.ts';
import { isAdmin, type Principal } from '../../core/access/principal.ts';
import { AppError } from '../../core/errors/app-error.ts';
import type { User } from '../users/user.ts';
import type { UsersService } from '../users/users.service.ts';

/**
 * How far a right reaches: over every item, over the caller's own (their posts, comments, orders, their
 * own user), or none. The rules themselves live in each resource's service (DECISIONS §5); this is
 * their summary for a client deciding what to offer (the admin console hides what would be a 403).
 */
export type Reach = 'all' | 'own' | 'none';

export interface ResourceRights {
  read: Reach;
  create: Reach;
  update: Reach;
  delete: Reach;
}

/** The resources a client can list, in the order of DECISIONS §20's navigation. */
export const RESOURCES = [
  'users',
  'posts',
  'comments',
  'products',
  'orders',
  'customers',
  'webhooks',
  'events',
  'imports',
  'trash',
] as const;
export type ResourceName = (typeof RESOURCES)[number];

const ADMIN: ResourceRights = { read: 'all', create: 'all', update: 'all', delete: 'all' };
const NONE: ResourceRights = { read: 'none', create: 'none', update: 'none', delete: 'none' };

/** DECISIONS §5 (and §18, §19) for a signed-in user who is not an admin. */
const USER_RIGHTS: Record<ResourceName, ResourceRights> = {
  users: { read: 'all', create: 'none', update: 'own', delete: 'own' },
  posts: { read: 'all', create: 'own', update: 'own', delete: 'own' },
  comments: { read: 'all', create: 'own', update: 'none', delete: 'own' },
  products: { read: 'all', create: 'none', update: 'none', delete: 'none' },
  orders: { read: 'own', create: 'own', update: 'own', delete: 'none' },
  customers: { read: 'own', create: 'none', update: 'none', delete: 'none' },
  webhooks: NONE,
  events: NONE,
  imports: { read: 'own', create: 'own', update: 'none', delete: 'none' },
  trash: { read: 'own', create: 'none', update: 'own', delete: 'none' },
};

export interface Me {
  user: User;
  admin: boolean;
  rights: Record<ResourceName, ResourceRights>;
}

export function rightsOf(admin: boolean): Record<ResourceName, ResourceRights> {
  return admin
    ? (Object.fromEntries(RESOURCES.map((name) => [name, ADMIN])) as Record<ResourceName, ResourceRights>)
    : USER_RIGHTS;
}

/** `GET /me`: the caller as the database knows them now (a demoted admin reads as a user at once). */
export function createMeService(users: UsersService) {
  return {
    async whoAmI(actor: Principal | null): Promise<Me> {
      const principal = requireSignedIn(actor);
      // A token outlives its user: a deleted one is signed out (401), not a missing resource.
      const user = await users.getUser(principal, principal.userId).catch((error: unknown) => {
        if (error instanceof AppError && error.code === 'NOT_FOUND') throw AppError.unauthorized();
        throw error;
      });
      const admin = user.role === 'admin' && isAdmin(principal);
      return { user, admin, rights: rightsOf(admin) };
    },
  };
}

export type MeService = ReturnType<typeof createMeService>;
