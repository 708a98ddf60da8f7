import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { AppError } from '../errors/app-error.ts';
import { VERSIONS_KEYWORD } from './versioning.ts';

/**
 * A route reads only the query parameters it declares (DECISIONS §13), from its own query schema, for
 * every route the app serves, whoever wrote it:
 *
 * - under `/api` in v2, an undeclared parameter is 422 VALIDATION_ERROR naming each one (as Stripe's
 *   "unknown parameter");
 * - in v1 (and on the routes outside `/api`) undeclared parameters are dropped before validation, so the
 *   handler and the services below it never see them: the seed counts tightened validation as a
 *   breaking change, so v1 goes on ignoring them.
 *
 * A list with a filter grammar (its schema declares `field[op]` parameters) owns every bracketed name:
 * those reach its parser, which reads them only through the grammar's closed sets and answers an unknown
 * field or operator with a 422 naming it, in every version (docs/QUERYING.md).
 *
 * `version` is the API-wide parameter that chooses a version on plain `/api` (versioning.ts): declared on
 * every `/api` route.
 *
 * Why: lists that never declared `order` still read it, and wrote it into their ORDER BY.
 */

/** API-wide parameters every `/api` route takes (versioning.ts reads `version` from the URL itself). */
const API_WIDE = ['version'];

const BRACKETED = /^[^[\]]+\[[^[\]]*\]$/;

interface Declared {
  names: ReadonlySet<string>;
  /** Whether the route's schema declares `field[op]` filters: its grammar then owns every bracketed name. */
  filters: boolean;
}

function declaredOf(querystring: unknown, api: boolean): Declared {
  const schema = querystring as { properties?: Record<string, unknown> } | undefined;
  const shapes = (querystring as Record<string, Record<string, { properties?: object }>> | undefined)?.[
    VERSIONS_KEYWORD
  ];
  // A schema that differs by version (`Versioned`) declares the union of its versions' parameters;
  // each version's validation refuses the other's names where they do not apply.
  const names = new Set([
    ...Object.keys(schema?.properties ?? {}),
    ...Object.values(shapes ?? {}).flatMap((shape) => Object.keys(shape.properties ?? {})),
    ...(api ? API_WIDE : []),
  ]);
  return { names, filters: [...names].some((name) => BRACKETED.test(name)) };
}

function undeclaredIn(query: unknown, declared: Declared): string[] {
  if (query === null || typeof query !== 'object') return [];
  return Object.keys(query).filter((name) => !declared.names.has(name) && !(declared.filters && BRACKETED.test(name)));
}

/** Installs the rule on every route added after it (register it before the routes). */
export function registerDeclaredParameters(app: FastifyInstance): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    const api = route.url === '/api' || route.url.startsWith('/api/');
    const querystring = route.schema?.querystring;
    // Outside /api a route without a query schema (the docs page, its assets) is left to its plugin.
    if (!api && querystring === undefined) return;
    const declared = declaredOf(querystring, api);
    const onlyDeclared = (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void) => {
      const undeclared = undeclaredIn(request.query, declared);
      if (undeclared.length === 0) return done();
      if (api && request.apiVersion >= 2) {
        return done(
          AppError.validation(
            undeclared.map((field) => ({ field, message: 'is not a query parameter of this operation' })),
          ),
        );
      }
      const query = request.query as Record<string, unknown>;
      for (const name of undeclared) delete query[name];
      done();
    };
    route.preValidation = [...[route.preValidation ?? []].flat(), onlyDeclared];
  });
}
