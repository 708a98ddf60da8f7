import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../errors/app-error.ts';
import type { Access } from '../http/fastify-types.ts';
import type { Principal } from './principal.ts';
import { needsCurrentRights, type RightsCheck } from './rights.ts';
import type { TokenVerifier } from './tokens.ts';

const BEARER = /^Bearer +([A-Za-z0-9\-_.~+/]+=*) *$/i;

/** The token of an Authorization header; a malformed header is a 401 even on public routes. */
function bearerToken(header: string): string {
  const match = BEARER.exec(header);
  if (!match?.[1]) throw AppError.unauthorized('Authorization header must be "Bearer <token>"', 'malformed header');
  return match[1];
}

/** Reads the bearer token, if any. A malformed or invalid one is a 401 even on public routes. */
async function authenticate(request: FastifyRequest, verifier: TokenVerifier): Promise<Principal | null> {
  const header = request.headers.authorization;
  if (header === undefined) return null;
  return verifier.verify(bearerToken(header));
}

/** The route's own rule (`config.access`) for the request's principal: the refusal, or undefined. */
function refusalOf(request: FastifyRequest): AppError | undefined {
  const access: Access | undefined = request.routeOptions.config.access;
  if (access === 'public' || access === undefined) return undefined;
  if (!request.principal) return AppError.unauthorized();
  if (access === 'admin' && request.principal.role !== 'admin') return AppError.forbidden('This action requires an administrator');
  return undefined;
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

  /** Verifies the token (or waits for one being verified) and reads current rights where needed. */
  async function decide(request: FastifyRequest): Promise<void> {
    const principal = await authenticate(request, verifier);
    const perOperation = request.routeOptions.config.rightsPerOperation === true;
    request.principal = !perOperation && needsCurrentRights(principal, request.method) ? await rights.current(principal) : principal;
    const refusal = refusalOf(request);
    if (refusal) throw refusal;
  }

  // Callback style, as the rate limiter's hook: no token, or a token verified moments ago (the memo,
  // core/hardening/verified-token-memo.ts) on a request that needs no current-rights read, is decided
  // without a promise (the async hook's promises and microtask hops: SQLite W1 B/A 1.10, CPU 0.91; W4
  // 1.04, CPU 0.96; alternating bursts at load 1.8-2.7, bench/RESULTS.md, session 8).
  app.addHook('onRequest', (request, _reply, done) => {
    const header = request.headers.authorization;
    let principal: Principal | null = null;
    if (header !== undefined) {
      let token: string;
      try {
        token = bearerToken(header);
      } catch (error) {
        return done(error as AppError);
      }
      const known = verifier.verifiedNow?.(token);
      if (known === undefined) return void decide(request).then(() => done(), done);
      principal = known;
    }
    if (request.routeOptions.config.rightsPerOperation !== true && needsCurrentRights(principal, request.method)) {
      return void decide(request).then(() => done(), done);
    }
    request.principal = principal;
    done(refusalOf(request));
  });
}
