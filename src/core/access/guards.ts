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

export function requireSelfOrAdmin(actor: Principal | null, userId: number): Principal {
  const principal = requireSignedIn(actor);
  if (principal.role !== 'admin' && principal.userId !== userId) {
    throw AppError.forbidden('You may only change your own account');
  }
  return principal;
}
