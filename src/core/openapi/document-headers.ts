import type { ApiVersion } from '../http/versioning.ts';
import type { Operation } from './openapi-document.ts';
import type { OperationFacts } from './operation-facts.ts';

/** The description of a success status the route's schema left at @fastify/swagger's `Default Response`. */
export const SUCCESS: Record<string, string> = {
  200: 'OK',
  201: 'Created; `Location` names the new resource',
  202: 'Accepted; `Location` names the job to poll',
  204: 'Done; no body',
  304: 'Not modified (`If-None-Match` matched); no body',
};

/**
 * `Location` on a 201 or 202, the caching headers on a GET's 200 and 304 (a stream's 200: Cache-Control only),
 * the new `ETag` on a 200 `PUT` or `PATCH` that takes `If-Match` (core/http/caching.ts).
 */
export function successHeaders(
  method: string,
  status: string,
  stream = false,
  ifMatch = false,
): Record<string, unknown> {
  if (status === '201' || status === '202') {
    return {
      Location: { description: 'Where the created resource lives', required: true, schema: { type: 'string' } },
    };
  }
  if ((method === 'put' || method === 'patch') && ifMatch && status === '200') {
    return { ETag: { $ref: '#/components/headers/ETag' } };
  }
  if (method === 'get' && stream)
    return status === '200' ? { 'Cache-Control': { $ref: '#/components/headers/CacheControl' } } : {};
  if (method === 'get' && (status === '200' || status === '304')) {
    return {
      ETag: { $ref: '#/components/headers/ETag' },
      'Cache-Control': { $ref: '#/components/headers/CacheControl' },
    };
  }
  return {};
}

/** `API-Version` on every response; v1's deprecation headers on every response of v1. */
export function versionHeaders(version: ApiVersion): Record<string, unknown> {
  const headers: Record<string, unknown> = { 'API-Version': { $ref: '#/components/headers/ApiVersion' } };
  if (version === 1) {
    headers.Deprecation = { $ref: '#/components/headers/Deprecation' };
    headers.Sunset = { $ref: '#/components/headers/Sunset' };
    headers.Link = { $ref: '#/components/headers/SuccessorLink' };
  }
  return headers;
}

/**
 * The request headers GETs and conditional writes take, as parameters. Not `API-Version`: it decides only on
 * plain `/api/...`, and every path of a document is under its version's prefix (`servers`), where the header
 * is ignored; a reference that offered it would send it (as /docs sent `API-Version: 1` to v2). The
 * description (`info`) tells how plain `/api` picks a version.
 */
export function requestParameters(operation: Operation, facts: OperationFacts, method: string): unknown[] {
  const given = (operation as { parameters?: unknown[] }).parameters ?? [];
  const extra: unknown[] = [];
  if (method === 'get') extra.push({ $ref: '#/components/parameters/IfNoneMatch' });
  if (facts.docs.ifMatch) extra.push({ $ref: '#/components/parameters/IfMatch' });
  return [...given, ...extra];
}
