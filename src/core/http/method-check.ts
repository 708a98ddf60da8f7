import type { FastifyInstance } from 'fastify';
import { notServed } from './error-envelope.ts';
import { integerParamsOf, type RouteIndex } from './route-index.ts';
import { chooseVersion, type ApiVersion } from './versioning.ts';

const DIGITS = /^\d+$/;

/**
 * The method and the path are checked before anything reads the request (its token, its body):
 *
 * - a request no route serves is answered before its body is parsed (Fastify would parse it for the
 *   not-found handler first, so a bodiless `QUERY` got 400 "not valid JSON" instead of 405);
 * - a route whose integer path parameter is not digits names nothing of it (`GET /reports/generate`
 *   reaches `GET /reports/:reportId` in Fastify's router): 405 with the path's real `Allow` (`POST`), or 404.
 *
 * Registered after the URL-length limit, CORS and rate limits, before the access check.
 */
export function registerMethodCheck(app: FastifyInstance, routes: RouteIndex): void {
  const integerParams = new Map<string, string[]>();
  app.addHook('onRoute', (route) => {
    const names = integerParamsOf(route.schema?.params);
    if (names.length > 0) integerParams.set(route.url, names);
  });
  // Callback style, as every per-request hook that need not wait.
  app.addHook('onRequest', (request, reply, done) => {
    const names = request.is404 ? undefined : integerParams.get(request.routeOptions.url ?? '');
    if (names === undefined) return done();
    const params = request.params as Record<string, string | undefined>;
    if (names.every((name) => DIGITS.test(params[name] ?? ''))) return done();
    // 404 as for any id that names no row (core/validation/input-rules.ts): the text sent is not echoed.
    notServed(routes, request, reply, 'Resource');
  });
  // A route of some API versions only (`config.openapi.versions`) is not served in another version `/api`
  // negotiated: 405 with that version's `Allow`, or 404, as under that version's own prefix, which lacks
  // the route; before the access check, as for any route the request has not got.
  app.addHook('onRequest', (request, reply, done) => {
    const versions = request.is404 ? undefined : request.routeOptions.config.openapi?.versions;
    if (!versions) return done();
    let version: ApiVersion | undefined;
    try {
      version = chooseVersion(request.url, request.headers)?.version;
    } catch {
      return done(); // a version refused: the versioning hook answers it
    }
    if (version === undefined || versions.includes(version)) return done();
    request.apiVersion = version;
    notServed(routes, request, reply);
  });
  // After every onRequest hook (the API version's refusal comes first), before the body is read.
  app.addHook('preParsing', (request, reply, payload, done) => {
    if (!request.is404) return done(null, payload);
    notServed(routes, request, reply);
  });
}
