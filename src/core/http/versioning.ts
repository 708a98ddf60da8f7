import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static, type TSchema, type TUnsafe } from 'typebox';
import { AppError } from '../errors/app-error.ts';

/**
 * REST versioning (DECISIONS §7). One route table is registered under `/api`, `/api/v1` and
 * `/api/v2`; a version is a thin difference read from `request.apiVersion` by presenters.
 *
 * Selection: a versioned path (`/api/v1`, `/api/v2`) decides; on plain `/api` the first signal
 * present decides, in this order: `API-Version: N`, `Accept: application/vnd.content.vN+json`,
 * `?version=N`, else 1. Lower-precedence signals are ignored (even when they disagree or name an
 * unknown version), so a client that always sends a header can still follow versioned links.
 */

export const API_VERSIONS = [1, 2] as const;
export type ApiVersion = (typeof API_VERSIONS)[number];
export const LATEST_API_VERSION: ApiVersion = 2;
/** The day v2 was released; v1's default Sunset is a year later (the seed asks for six months at least). */
export const V2_RELEASE_DATE = '2026-11-21';
export const DEFAULT_V1_SUNSET = 'Sun, 21 Nov 2027 00:00:00 GMT';

/** The prefixes one route table is registered under; `null` means "negotiated". */
export const API_PREFIXES: readonly { prefix: string; version: ApiVersion | null }[] = [
  { prefix: '/api', version: null },
  { prefix: '/api/v1', version: 1 },
  { prefix: '/api/v2', version: 2 },
];

const VENDOR_MEDIA = /^application\/vnd\.content\.v([^+;\s]*)\+json$/i;
const API_PATH = /^\/api(?:\/v(\d+))?(?=[/?]|$)/;

export interface VersionChoice {
  version: ApiVersion;
  prefix: string;
  /** The vendor media type to echo in `Content-Type`, when the client asked through `Accept`. */
  mediaType: string | null;
}

function supported(raw: string): ApiVersion | null {
  if (!/^\d{1,3}$/.test(raw)) return null;
  const version = Number(raw);
  return (API_VERSIONS as readonly number[]).includes(version) ? (version as ApiVersion) : null;
}

function unsupported(raw: string, from: string): AppError {
  return new AppError(
    'UNSUPPORTED_VERSION',
    `API version ${JSON.stringify(raw)} from ${from} is not supported; use 1 or 2`,
    {
      details: [{ field: from, message: `must be one of ${API_VERSIONS.join(', ')}` }],
    },
  );
}

/** The first `application/vnd.content.vN+json` in `Accept` (parameters such as `q` ignored). */
function vendorMediaIn(accept: string | undefined): { raw: string; mediaType: string } | null {
  if (!accept) return null;
  for (const range of accept.split(',')) {
    const mediaType = range.split(';')[0]?.trim() ?? '';
    const match = VENDOR_MEDIA.exec(mediaType);
    if (match) return { raw: match[1] ?? '', mediaType: mediaType.toLowerCase() };
  }
  return null;
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function queryVersion(url: string): string | undefined {
  const query = url.indexOf('?');
  if (query < 0) return undefined;
  return new URLSearchParams(url.slice(query + 1)).get('version') ?? undefined;
}

/**
 * The version a request to `/api...` asks for, or null for other paths. Throws 400
 * `UNSUPPORTED_VERSION` for an unknown version (406 `NOT_ACCEPTABLE` when it came from `Accept`).
 */
export function chooseVersion(url: string, headers: FastifyRequest['headers']): VersionChoice | null {
  const path = API_PATH.exec(url);
  if (!path) return null;
  const accepted = vendorMediaIn(headerValue(headers.accept));
  const echo = (version: ApiVersion) => (accepted && supported(accepted.raw) === version ? accepted.mediaType : null);

  if (path[1] !== undefined) {
    const version = supported(path[1]);
    if (!version) throw unsupported(path[1], 'path');
    return { version, prefix: `/api/v${version}`, mediaType: echo(version) };
  }
  const header = headerValue(headers['api-version']);
  if (header !== undefined) {
    const version = supported(header.trim());
    if (!version) throw unsupported(header, 'API-Version');
    return { version, prefix: '/api', mediaType: echo(version) };
  }
  if (accepted) {
    const version = supported(accepted.raw);
    if (!version) {
      throw new AppError(
        'NOT_ACCEPTABLE',
        `Media type ${accepted.mediaType} is not available; use application/vnd.content.v1+json or v2`,
        {
          details: [{ field: 'Accept', message: `version must be one of ${API_VERSIONS.join(', ')}` }],
        },
      );
    }
    return { version, prefix: '/api', mediaType: accepted.mediaType };
  }
  const query = queryVersion(url);
  if (query !== undefined) {
    const version = supported(query.trim());
    if (!version) throw unsupported(query, 'version');
    return { version, prefix: '/api', mediaType: null };
  }
  return { version: 1, prefix: '/api', mediaType: null };
}

/** `/api/users/7?x=1` → `/api/v2/users/7`: the same resource under the successor version. */
export function successorPath(url: string): string {
  const path = url.split('?')[0] ?? '';
  return path.replace(API_PATH, '/api/v2');
}

export interface VersioningOptions {
  /** v1's withdrawal date as an HTTP-date (`Sunset`). */
  v1Sunset: string;
}

/**
 * Root-level hooks, so they also run for unknown routes and errors under `/api`: pick the version,
 * set `request.apiPrefix`/`apiVersion`, and mark every response with the version (and v1's
 * deprecation signal).
 */
export function registerApiVersioning(app: FastifyInstance, options: VersioningOptions): void {
  // Which requests were versioned, and how: a request whose version was refused is not marked.
  const choices = new WeakMap<FastifyRequest, VersionChoice>();
  app.decorateRequest('apiVersion', 1);
  registerVendorJsonBody(app);

  app.addHook('onRequest', (request, _reply, done) => {
    let choice: VersionChoice | null;
    try {
      choice = chooseVersion(request.url, request.headers);
    } catch (error) {
      return done(error as Error);
    }
    if (choice) {
      request.apiVersion = choice.version;
      request.apiPrefix = choice.prefix;
      choices.set(request, choice);
    }
    done();
  });

  app.addHook('onSend', (request, reply, payload, done) => {
    const choice = choices.get(request);
    if (choice) markVersion(request, reply, choice, options);
    // A request refused by an earlier hook (401, 414, 429) never reached ours.
    else markAnsweringVersion(request, reply, options);
    done(null, payload);
  });
}

/**
 * Marks an answer to a request the version hook never saw (refused by an earlier hook, or answered
 * by Fastify outside every hook: a URL it cannot decode or route) with the version that answered,
 * chosen now: so that its error still says which, as every REST answer does.
 */
export function markAnsweringVersion(request: FastifyRequest, reply: FastifyReply, options: VersioningOptions): void {
  const choice = quietChoice(request);
  if (choice) markVersion(request, reply, choice, options);
}

function quietChoice(request: FastifyRequest): VersionChoice | null {
  try {
    return chooseVersion(request.url, request.headers);
  } catch {
    // A refused version (400 UNSUPPORTED_VERSION, 406) is answered by the current one: the answer
    // must still say which, as every REST answer does (DECISIONS §7).
    return { version: LATEST_API_VERSION, prefix: '/api', mediaType: null };
  }
}

/** Bodies sent as `application/vnd.content.vN+json` are JSON too, parsed by the same safe parser. */
function registerVendorJsonBody(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser(/^application\/vnd\.content\.v\d+\+json$/i, { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    if (text.trim() === '') return done(null, undefined);
    parse(request, text, (error, value) => {
      if (error) return done(new AppError('BAD_REQUEST', 'Request body is not valid JSON'), undefined);
      done(null, value);
    });
  });
}

function markVersion(
  request: FastifyRequest,
  reply: FastifyReply,
  choice: VersionChoice,
  options: VersioningOptions,
): void {
  const { version } = choice;
  reply.header('api-version', String(version));
  if (version === 1) {
    reply.header('deprecation', 'true');
    reply.header('sunset', options.v1Sunset);
    const successor = `<${successorPath(request.url)}>; rel="successor-version"`;
    const existing = reply.getHeader('link');
    reply.header('link', existing ? `${String(existing)}, ${successor}` : successor);
  }
  const contentType = reply.getHeader('content-type');
  if (choice.mediaType && typeof contentType === 'string' && contentType.startsWith('application/json')) {
    reply.header('content-type', `${choice.mediaType}; charset=utf-8`);
  }
}

/** Holds the per-version shapes of a versioned schema (read by the OpenAPI generator only). */
export const VERSIONS_KEYWORD = 'x-api-versions';

type ObjectSchema = TSchema & { properties: Record<string, TSchema>; required?: string[] };

/** The property names of both shapes in one order: each shape's own order, v2-only keys beside their v2 neighbours. */
function mergedKeys(first: string[], second: string[]): string[] {
  const keys = [...first];
  second.forEach((key, index) => {
    if (keys.includes(key)) return;
    const previous = second[index - 1];
    keys.splice(previous === undefined ? 0 : keys.indexOf(previous) + 1, 0, key);
  });
  return keys;
}

/** What a documentation keyword changes: nothing a value is checked against. */
const validated = (schema: TSchema) => JSON.stringify({ ...schema, description: undefined, examples: undefined });

/**
 * A property both versions have: the one schema, or when their rules differ (`fields` naming `created_at`
 * in v1 and `createdAt` in v2) either of them at run time; the version's parser then holds its own.
 */
function eitherOf(first: TSchema | undefined, second: TSchema | undefined): TSchema {
  if (!first || !second || validated(first) === validated(second)) return (first ?? second)!;
  const optional = (schema: TSchema) => (schema as Record<string, unknown>)['~optional'] === true;
  const union = Type.Union([first, second]);
  return optional(first) || optional(second) ? Type.Optional(union) : union;
}

/**
 * An object schema that differs by version, for the rare field that v2 renamed. One route table
 * serves both versions, so at run time the schema is the union of both shapes (a property only
 * one version has is optional), which serializes either version's object as fast as a plain
 * schema; each version's OpenAPI document shows its own exact shape, kept under `x-api-versions`.
 */
export function Versioned<V1 extends TSchema, V2 extends TSchema>(v1: V1, v2: V2): TUnsafe<Static<V1> | Static<V2>> {
  const a = v1 as unknown as ObjectSchema;
  const b = v2 as unknown as ObjectSchema;
  const keys = mergedKeys(Object.keys(a.properties), Object.keys(b.properties));
  const properties = Object.fromEntries(keys.map((key) => [key, eitherOf(a.properties[key], b.properties[key])]));
  const required = (a.required ?? []).filter((key) => (b.required ?? []).includes(key));
  return Type.Unsafe<Static<V1> | Static<V2>>({
    ...a,
    properties,
    required,
    [VERSIONS_KEYWORD]: { 1: { ...v1 }, 2: { ...v2 } },
  });
}

const TABLE_VERSION = Symbol('the API version of a prefix context');

/** Marks a prefix context (and its children) with the version its prefix fixes (`null`: `/api`, negotiated). */
export function setTableVersion(app: FastifyInstance, version: ApiVersion | null): void {
  (app as unknown as Record<symbol, ApiVersion | null>)[TABLE_VERSION] = version;
}

/**
 * Whether routes of these API versions only (their `config.openapi.versions`) belong in the route
 * table `app` registers: not under another version's own prefix (`/api/v1` has no v2-only route, so
 * it answers 404, or 405 with v1's `Allow`, as for any route it lacks); under `/api`, whose version is
 * negotiated per request, yes (the method check refuses the request in another version).
 */
export function servesVersions(app: FastifyInstance, versions: readonly ApiVersion[]): boolean {
  const version = (app as unknown as Record<symbol, ApiVersion | null | undefined>)[TABLE_VERSION];
  return version == null || versions.includes(version);
}
