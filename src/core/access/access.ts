import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../errors/app-error.ts';
import type { Access } from '../http/fastify-types.ts';
import type { Principal } from './principal.ts';
import { needsCurrentRights, type RightsCheck } from './rights.ts';
import type { TokenVerifier } from './tokens.ts';

const BEARER = /^Bearer +([A-Za-z0-9\-_.~+/]+=*) *$/i;

/** Reads the bearer token, if any. A malformed or invalid one is a 401 even on public routes. */
async function authenticate(request: FastifyRequest, verifier: TokenVerifier): Promise<Principal | null> {
  const header = request.headers.authorization;
  if (header === undefined) return null;
  const match = BEARER.exec(header);
  if (!match?.[1]) throw AppError.unauthorized('Authorization header must be "Bearer <token>"', 'malformed header');
  return verifier.verify(match[1]);
}

/**
 * Every route must declare who may call it (`config.access`); a route without one stops the app
 * at start-up. Owner rules (a user editing themselves) are decided by the services. A write, or a
 * token claiming admin, is checked against the user's current role and status first (rights.ts),
 * so services and route checks see the rights the database grants now; a route that declares
 * `rightsPerOperation` (GraphQL, whose POST may be a plain read) does that check per operation.
 */
export function registerAccessControl(app: FastifyInstance, verifier: TokenVerifier, rights: RightsCheck): void {
  app.decorateRequest('principal', null);

  app.addHook('onRoute', (route) => {
    if (!route.config?.access) {
      throw new Error(`Route ${String(route.method)} ${route.url} does not declare config.access`);
    }
  });

  app.addHook('onRequest', async (request) => {
    const access: Access | undefined = request.routeOptions.config.access;
    const principal = await authenticate(request, verifier);
    const perOperation = request.routeOptions.config.rightsPerOperation === true;
    request.principal = !perOperation && needsCurrentRights(principal, request.method) ? await rights.current(principal) : principal;
    if (access === 'public' || access === undefined) return;
    if (!request.principal) throw AppError.unauthorized();
    if (access === 'admin' && request.principal.role !== 'admin') {
      throw AppError.forbidden('This action requires an administrator');
    }
  });
}
