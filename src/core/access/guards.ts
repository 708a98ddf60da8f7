import { AppError } from '../errors/app-error.ts';
import type { Principal } from './principal.ts';

/** Permission checks used by services, so REST and GraphQL enforce the same rules. */

export function requireSignedIn(actor: Principal | null): Principal {
  if (!actor) throw AppError.unauthorized();
  return actor;
}

export function requireAdmin(actor: Principal | null): Principal {
  const principal = requireSignedIn(actor);
  if (principal.role !== 'admin') throw AppError.forbidden('This action requires an administrator');
  return principal;
}

/** Whether `actor` may change user `userId`'s account: that user, or an admin (the rule of `requireSelfOrAdmin`). */
export function isSelfOrAdmin(actor: Principal | null, userId: number): boolean {
  return actor !== null && (actor.role === 'admin' || actor.userId === userId);
}

export function requireSelfOrAdmin(actor: Principal | null, userId: number): Principal {
  const principal = requireSignedIn(actor);
  if (!isSelfOrAdmin(principal, userId)) {
    throw AppError.forbidden('You may only change your own account');
  }
  return principal;
}
