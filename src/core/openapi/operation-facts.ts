import type { RouteOptions } from 'fastify';
import type { Access, OperationDocs } from '../http/fastify-types.ts';
import { VERSIONS_KEYWORD } from '../http/versioning.ts';

/** What the OpenAPI post-processing needs to know about a route beyond its schema. */
export interface OperationFacts {
  access: Access | undefined;
  hasParams: boolean;
  hasBody: boolean;
  hasQuery: boolean;
  hasHeaders: boolean;
  method: string;
  docs: OperationDocs;
}

/** REST routes are documented through their versioned paths only (`/api/v1/...`, `/api/v2/...`). */
export const VERSIONED_URL = /^\/api\/v\d+\//;

/**
 * A stable operation id from the method and the path without its version prefix, so an operation
 * keeps its id across versions: `GET /api/v2/users/:userId/posts` → `getUsersByUserIdPosts`.
 */
export function operationIdOf(method: string, url: string): string {
  const words = url
    .replace(/^\/api(\/v\d+)?/, '')
    .split('/')
    .filter(Boolean)
    .map((segment) => (segment.startsWith(':') ? `by-${segment.slice(1)}` : segment))
    .flatMap((segment) => segment.split(/[-_.]/))
    .filter(Boolean);
  return [method.toLowerCase(), ...words.map((word) => word[0]!.toUpperCase() + word.slice(1))].join('');
}

type Schema = {
  hide?: boolean;
  operationId?: string;
  params?: unknown;
  body?: unknown;
  querystring?: unknown;
  headers?: unknown;
  security?: unknown;
};

/**
 * The @fastify/swagger `transform`: hides everything but the versioned REST routes, names each
 * operation, and applies the bearer scheme to every route whose `config.access` is not `public`.
 * It records each operation's facts for the per-version post-processing (error responses).
 */
export function createTransform(facts: Map<string, OperationFacts>) {
  return ({ schema, url, route }: { schema: unknown; url: string; route: RouteOptions }) => {
    const given = (schema ?? {}) as Schema;
    if (!VERSIONED_URL.test(url) || given.hide) return { schema: { ...given, hide: true }, url };
    const access = route.config?.access;
    const method = [route.method].flat()[0] ?? 'GET';
    const operationId = given.operationId ?? operationIdOf(method, url);
    facts.set(operationId, {
      access,
      hasParams: given.params !== undefined,
      hasBody: given.body !== undefined,
      hasQuery: given.querystring !== undefined,
      hasHeaders: given.headers !== undefined,
      method: method.toLowerCase(),
      docs: route.config?.openapi ?? {},
    });
    const security = access === 'public' ? [] : [{ bearerAuth: [] }];
    const querystring = versionedQuery(given.querystring, url);
    return { schema: { ...given, ...(querystring ? { querystring } : {}), operationId, security }, url };
  };
}

/**
 * A query schema that differs by version (`Versioned`: products name `created_at[gte]` in v1 and
 * `createdAt[gte]` in v2) as the version of `url` takes it: its parameters become the operation's
 * before the per-version document could pick the shape. Undefined for any other schema.
 */
function versionedQuery(querystring: unknown, url: string): unknown {
  const shapes = (querystring as Record<string, Record<string, unknown>> | undefined)?.[VERSIONS_KEYWORD];
  const version = /^\/api\/v(\d+)\//.exec(url)?.[1];
  return shapes && version ? shapes[version] : undefined;
}
