import type { FastifyInstance, FastifyRequest, onRequestHookHandler } from 'fastify';
import { AppError } from '../errors/app-error.ts';
import type { Access } from '../http/fastify-types.ts';
import { bearerTokenOf, MALFORMED } from './bearer.ts';
import type { Principal } from './principal.ts';
import { needsCurrentRights, type RightsCheck } from './rights.ts';
import type { TokenVerifier } from './tokens.ts';

type Done = Parameters<onRequestHookHandler>[2];

/** The route's own rule (`config.access`) for a principal: the refusal, or undefined. */
function refusalOf(access: Access | undefined, principal: Principal | null): AppError | undefined {
  if (access === 'public' || access === undefined) return undefined;
  if (!principal) return AppError.unauthorized();
  if (access === 'admin' && principal.role !== 'admin')
    return AppError.forbidden('This action requires an administrator');
  return undefined;
}

/**
 * Every route must declare who may call it (`config.access`); a route without one stops the app
 * at start-up. Owner rules (a user editing themselves) are decided by the services. A write, or a
 * token claiming admin, is checked against the user's current role and status first (rights.ts),
 * so services and route checks see the rights the database grants now; a route that declares
 * `rightsPerOperation` (GraphQL, whose POST may be a plain read) does that check per operation.
 * A malformed Authorization header, or a token that does not verify, is a 401 even on public routes.
 */
export function registerAccessControl(app: FastifyInstance, verifier: TokenVerifier, rights: RightsCheck): void {
  app.decorateRequest('principal', null);

  app.addHook('onRoute', (route) => {
    if (!route.config?.access) {
      throw new Error(`Route ${String(route.method)} ${route.url} does not declare config.access`);
    }
  });

  /** The one access decision, once the principal is known: it is the request's, and the route's rule applies. */
  function admit(request: FastifyRequest, principal: Principal | null, done: Done): void {
    request.principal = principal;
    done(refusalOf(request.routeOptions.config.access, principal));
  }

  /** The token's principal as the database allows it now, where the request needs that (rights.ts). */
  function admitVerified(request: FastifyRequest, principal: Principal, done: Done): void {
    if (request.routeOptions.config.rightsPerOperation === true || !needsCurrentRights(principal, request.method)) {
      return admit(request, principal, done);
    }
    rights.current(principal).then((current) => admit(request, current, done), done);
  }

  // Callback style: no token, or a token verified moments ago (the memo,
  // core/hardening/verified-token-memo.ts) on a request that needs no current-rights read, is decided
  // without a promise; only the steps that must wait (verifying, reading rights) do. A promise per
  // request here was measurable on small reads.
  app.addHook('onRequest', (request, _reply, done) => {
    const token = bearerTokenOf(request.headers.authorization);
    if (token === undefined) return admit(request, null, done);
    if (token === MALFORMED)
      return done(AppError.unauthorized('Authorization header must be "Bearer <token>"', 'malformed header'));
    const known = verifier.verifiedNow?.(token);
    if (known !== undefined) return admitVerified(request, known, done);
    verifier.verify(token).then((principal) => admitVerified(request, principal, done), done);
  });
}
