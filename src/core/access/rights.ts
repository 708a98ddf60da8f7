import { AppError } from '../errors/app-error.ts';
import type { Principal, Role } from './principal.ts';

/** What the database says about a token's subject now. */
export interface CurrentRights {
  role: Role;
  status: 'active' | 'inactive' | 'suspended';
}

/** One primary-key read of the user's role and status; undefined when the user no longer exists. */
export type RightsLookup = (userId: number) => Promise<CurrentRights | undefined>;

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Principals whose rights were read from the database during this request (never re-read). */
const checked = new WeakSet<Principal>();

/**
 * DECISIONS §5: stateless verification must not outlive a change of rights. A token is checked
 * against the database when it is used to write, or when it claims the admin role (any request it
 * makes may use that role: listing every order, reading every e-mail). A plain read with a user
 * token stays stateless until the token expires.
 */
export function needsCurrentRights(principal: Principal | null, method: string): principal is Principal {
  if (!principal || checked.has(principal)) return false;
  return principal.role === 'admin' || !SAFE_METHODS.has(method);
}

export interface RightsCheck {
  /**
   * The principal as the database allows it now: 401 when the user was deleted or is suspended
   * (a suspended user gets no token either); the role is the lesser of the token's and the
   * database's, so a demoted admin acts as a user (403 where the admin role is needed), and a
   * promotion takes effect with the next token. An `inactive` user keeps their rights: the token
   * endpoint issues them tokens too (modules/auth/auth.service.ts).
   */
  current(principal: Principal): Promise<Principal>;
}

export function createRightsCheck(lookup: RightsLookup): RightsCheck {
  return {
    async current(principal) {
      if (checked.has(principal)) return principal;
      const rights = await lookup(principal.userId);
      if (!rights) throw AppError.unauthorized('Invalid access token', 'the user no longer exists');
      if (rights.status === 'suspended')
        throw AppError.unauthorized('Invalid access token', 'the account is suspended');
      // A new object: verified principals are shared between requests by the token memo.
      const fresh: Principal = {
        userId: principal.userId,
        role: principal.role === 'admin' && rights.role === 'admin' ? 'admin' : 'user',
      };
      checked.add(fresh);
      return fresh;
    },
  };
}
