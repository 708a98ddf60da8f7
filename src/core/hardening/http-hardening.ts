import type { IncomingMessage, ServerResponse } from 'node:http';
import cors from '@fastify/cors';
import helmet from 'helmet';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors/app-error.ts';
import { sendError, toAppError } from '../http/error-envelope.ts';
import { markRequestContext } from '../http/request-context.ts';
import { markAnsweringVersion, type VersioningOptions } from '../http/versioning.ts';

/** A JSON API renders nothing: no scripts, styles, frames or forms from anywhere. */
const API_CSP = {
  useDefaults: false,
  directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"], baseUri: ["'none'"], formAction: ["'none'"] },
};

/**
 * The API docs page may load its app from a CDN and run a small inline bootstrap script; it gets a
 * CSP that allows exactly that, and still no framing.
 */
const PAGE_CSP = {
  useDefaults: false,
  directives: {
    defaultSrc: ["'self'"],
    scriptSrc: ["'self'", "'unsafe-inline'", 'https://unpkg.com', 'https://cdn.jsdelivr.net'],
    styleSrc: [
      "'self'",
      "'unsafe-inline'",
      'https://unpkg.com',
      'https://cdn.jsdelivr.net',
      'https://fonts.googleapis.com',
    ],
    fontSrc: ["'self'", 'data:', 'https://unpkg.com', 'https://cdn.jsdelivr.net', 'https://fonts.gstatic.com'],
    imgSrc: ["'self'", 'data:', 'blob:', 'https:'],
    connectSrc: ["'self'"],
    workerSrc: ["'self'", 'blob:'],
    frameAncestors: ["'none'"],
    baseUri: ["'self'"],
    formAction: ["'self'"],
  },
};

/**
 * GraphiQL loads every script and style sheet from this process (src/graphql/graphiql-assets.ts) and
 * runs no inline script. Inline styles stay allowed: the dialogs' scroll lock (react-remove-scroll)
 * adds a <style> element when one opens; a style cannot run code.
 */
const GRAPHIQL_CSP = {
  useDefaults: false,
  directives: {
    defaultSrc: ["'none'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'", "'unsafe-inline'"],
    fontSrc: ["'self'", 'data:'],
    imgSrc: ["'self'", 'data:'],
    connectSrc: ["'self'"],
    frameAncestors: ["'none'"],
    baseUri: ["'none'"],
    formAction: ["'none'"],
  },
};

/**
 * The admin console (DECISIONS §20): its scripts from this origin only (no inline script), inline styles
 * allowed (its component library writes style elements), every request to this origin, no framing.
 */
const ADMIN_CSP = {
  useDefaults: false,
  directives: {
    defaultSrc: ["'self'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'", "'unsafe-inline'"],
    imgSrc: ["'self'", 'data:', 'blob:'],
    fontSrc: ["'self'", 'data:'],
    connectSrc: ["'self'"],
    frameAncestors: ["'none'"],
    baseUri: ["'none'"],
    formAction: ["'self'"],
  },
};

/** Routes serving HTML for people: GraphiQL and the API documentation. */
export function isHtmlPageRoute(url: string): boolean {
  return url === '/graphiql' || /^\/(api\/)?(docs|documentation|reference)(\/|$)/.test(url);
}

/** Bearer tokens, not cookies: nothing else to protect with COEP; CORP keeps reads same-origin by default. */
const HELMET_DEFAULTS = { crossOriginEmbedderPolicy: false } as const;

/**
 * The headers a helmet middleware sets, read once by running it on a recording response. Our
 * policies hold no per-request values (no nonces, no functions), so every response of a kind gets
 * the very same headers; helmet remains their single source.
 */
function headersSetBy(middleware: ReturnType<typeof helmet>): Record<string, string> {
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader: (name: string, value: string) => (headers[name.toLowerCase()] = value),
    removeHeader: (name: string) => delete headers[name.toLowerCase()],
  };
  middleware({} as IncomingMessage, recorder as unknown as ServerResponse, (error?: unknown) => {
    if (error) throw error;
  });
  return headers;
}

/**
 * Helmet's headers that act only on an HTML document a browser renders (opener isolation, agent
 * clusters, DNS prefetching of its links, IE8 downloads, Flash and Acrobat policy files, the retired
 * XSS auditor): the HTML pages keep them, API answers (JSON, which no browser renders as a page) do
 * without. Every header costs every answer, and these six were a measurable share of a small GET's CPU.
 */
const DOCUMENT_ONLY = {
  crossOriginOpenerPolicy: false,
  originAgentCluster: false,
  xDnsPrefetchControl: false,
  xDownloadOptions: false,
  xPermittedCrossDomainPolicies: false,
  xXssProtection: false,
} as const;

/**
 * The headers of every API answer (not an HTML page), the set OWASP's REST Security Cheat Sheet asks
 * of an API: a CSP that allows nothing (no framing either), `nosniff`, HSTS, frame options, and
 * `Referrer-Policy: no-referrer`; plus `Cross-Origin-Resource-Policy: same-origin`, which keeps other
 * sites' pages from embedding an answer. `Cache-Control` is set per route (core/http/caching.ts).
 */
const apiSecurityHeaders = () =>
  headersSetBy(helmet({ ...HELMET_DEFAULTS, ...DOCUMENT_ONLY, contentSecurityPolicy: API_CSP }));

/**
 * Security headers on every response (helmet), the relaxed CSP only on the HTML pages. Computed
 * once per kind of page: @fastify/helmet builds its middleware per request (parsing the CSP each
 * time), and running even a prebuilt one costs a `setHeader` call per header; both showed in a small
 * GET's profile (bench/RESULTS.md, "Changes", 1 and 8).
 */
export async function registerSecurityHeaders(app: FastifyInstance): Promise<void> {
  const apiHeaders = apiSecurityHeaders();
  const pageHeaders = headersSetBy(helmet({ ...HELMET_DEFAULTS, contentSecurityPolicy: PAGE_CSP }));
  const graphiqlHeaders = headersSetBy(helmet({ ...HELMET_DEFAULTS, contentSecurityPolicy: GRAPHIQL_CSP }));
  const adminHeaders = headersSetBy(helmet({ ...HELMET_DEFAULTS, contentSecurityPolicy: ADMIN_CSP }));
  const pages = new Set<string>();
  app.addHook('onRoute', (route) => {
    if (isHtmlPageRoute(route.url)) pages.add(route.url);
  });
  app.addHook('onRequest', (request, reply, done) => {
    const url = request.routeOptions.url ?? '';
    const page = url === '/admin/' ? adminHeaders : pages.has(url) ? pageHeaders : apiHeaders;
    reply.headers(url === '/graphiql' ? graphiqlHeaders : page);
    done();
  });
}

/** Parses `CORS_ORIGINS` ("https://a.example, https://b.example"); empty means no cross-origin access. */
export function corsOriginsOf(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((origin) => origin.trim().replace(/\/+$/, ''))
    .filter((origin) => origin.length > 0);
}

/**
 * CORS for the listed browser origins only. Without `CORS_ORIGINS` the plugin is not installed at
 * all: browsers then keep other sites from reading the API (same-origin policy).
 */
export async function registerCors(app: FastifyInstance, origins: string[]): Promise<void> {
  if (origins.length === 0) return;
  // Handlers and route hooks set their own `Vary`; the answer also depends on `Origin`, so every
  // route ends with a hook that adds it back (a cache must not serve one origin's answer to another).
  app.addHook('onRoute', (route) => {
    route.onSend = [...[route.onSend ?? []].flat(), varyOnOrigin];
  });
  // The plugin answers any OPTIONS itself, one that is no preflight with a bare text/plain 400
  // ("Invalid Preflight Request"). Such a request is answered as without CORS instead: 405 with
  // Allow, or 404, in the error envelope (the not-found handler, core/http/error-envelope.ts).
  app.addHook('onRequest', (request, reply, done) => {
    if (request.method !== 'OPTIONS' || (request.headers.origin && request.headers['access-control-request-method']))
      return done();
    reply.callNotFound();
  });
  await app.register(cors, {
    origin: origins,
    // Credentials travel in the Authorization header, never in cookies.
    credentials: false,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: [
      'Authorization',
      'Content-Type',
      'Accept',
      'If-Match',
      'If-None-Match',
      'Idempotency-Key',
      'API-Version',
      'X-Request-Id',
    ],
    exposedHeaders: [
      'ETag',
      'Location',
      'Retry-After',
      'X-Request-Id',
      'API-Version',
      'Deprecation',
      'Sunset',
      'Link',
      'RateLimit-Limit',
      'RateLimit-Remaining',
      'RateLimit-Reset',
      'Idempotent-Replayed',
      'WWW-Authenticate',
      'Allow',
    ],
    maxAge: 600,
  });
}

async function varyOnOrigin(_request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
  const vary = String(reply.getHeader('vary') ?? '');
  if (!/(^|,)\s*(origin|\*)\s*(,|$)/i.test(vary)) reply.header('vary', vary ? `${vary}, Origin` : 'Origin');
  return payload;
}

/** A request line longer than the limit is refused before routing work, auth or rate limiting. */
export function registerUrlLengthLimit(app: FastifyInstance, maxUrlLength: number): void {
  // Callback style, as every per-request hook that need not wait: an async one costs a promise.
  app.addHook('onRequest', (request, _reply, done) => {
    if ((request.raw.url ?? '').length <= maxUrlLength) return done();
    done(new AppError('URI_TOO_LONG', `The request URL is longer than ${maxUrlLength} characters`));
  });
}

function frameworkAppError(error: FastifyError): AppError {
  switch (error.code) {
    case 'FST_ERR_BAD_URL':
      return new AppError('BAD_REQUEST', 'The URL is malformed (invalid percent-encoding)');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      // Fastify's message quotes the whole path.
      return new AppError('URI_TOO_LONG', 'A path segment of the URL is too long');
    default:
      return toAppError(error);
  }
}

/**
 * Fastify answers a URL its router refuses (broken percent-encoding such as `/api/users/%ff`, a path
 * parameter over 100 characters) through `frameworkErrors`, outside every hook and the error
 * handler. The answer built here gets what the hooks give every other one: the one error envelope,
 * the API's security headers, the request id and, under `/api`, the version that answered (with
 * v1's deprecation signal), chosen as for any request refused before the version hook.
 */
export function frameworkErrorAnswer(
  versioning: VersioningOptions,
): (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => void {
  const securityHeaders = apiSecurityHeaders();
  return (error, request, reply) => {
    reply.headers(securityHeaders);
    markRequestContext(request, reply);
    markAnsweringVersion(request, reply, versioning);
    void sendError(reply, frameworkAppError(error));
  };
}
