import { renderApiReference } from '@scalar/client-side-rendering';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { ifNoneMatchMatches } from '../http/caching.ts';
import { loadScalarBundle, scalarPluginVersion, type ScalarBundle } from './scalar-bundle.ts';

/** The page's configuration of Scalar's reference (the options its Fastify plugin was given before). */
const SCALAR_CONFIGURATION: Parameters<typeof renderApiReference>[0]['config'] = {
  _integration: 'fastify',
  // No icon to fetch: the browser's request for /favicon.ico would be a 404 in the console.
  favicon: 'data:,',
  // Served locally; no external fonts (the page must work without the internet).
  withDefaultFonts: false,
  // No hosted extras (AI agent, MCP generator, developer toolbar): they need the internet.
  showDeveloperTools: 'never',
  mcp: { disabled: true },
  agent: { disabled: true },
  url: '/api/v2/openapi.json',
  sources: [
    { title: 'v2 (current)', slug: 'v2', url: '/api/v2/openapi.json', default: true, agent: { disabled: true } },
    { title: 'v1 (deprecated)', slug: 'v1', url: '/api/v1/openapi.json', agent: { disabled: true } },
  ],
};

/** The script's URL names the plugin's version, so a browser may keep what it fetched there for a year. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

const BundleQuery = Type.Object({ v: Type.Optional(Type.String({ maxLength: 40 })) });

/**
 * The page Scalar's plugin would render (its own renderer), loading the bundle from `js/scalar.js`; with
 * `token`, "Test Request" starts authorised with it (the documents' `bearerAuth` scheme).
 */
export function docsPageHtml(version: string, token?: string): string {
  const config = token
    ? {
        ...SCALAR_CONFIGURATION,
        authentication: { preferredSecurityScheme: 'bearerAuth', securitySchemes: { bearerAuth: { token } } },
      }
    : SCALAR_CONFIGURATION;
  return renderApiReference({
    config,
    cdn: `js/scalar.js?v=${encodeURIComponent(version)}`,
    pageTitle: 'content-service API reference',
  });
}

/**
 * The interactive API reference (Scalar) at `/docs`, public, showing the v2 and v1 documents (in
 * development pre-authorised with `demoToken`).
 * Everything it needs is served from this process (no CDN): the page, its script and the documents.
 * The script is streamed from the installed plugin's file on each (uncached) request and never held in
 * memory (scalar-bundle.ts); the page is a few lines of HTML.
 */
export function registerDocsPage(app: FastifyInstance, demoToken?: () => Promise<string | undefined>): void {
  const version = scalarPluginVersion();
  const html = docsPageHtml(version);
  let bundle: Promise<ScalarBundle> | undefined;
  const config = { access: 'public', cacheControl: 'no-cache' } as const;
  app.get('/docs', { schema: { hide: true }, config }, (_request, reply) => reply.redirect('/docs/', 301));
  // In development the page carries a demo account's token, fresh on each view (no-cache), as GraphiQL's
  // Headers tab does; without one (production, no demo data) the same page as always.
  app.get('/docs/', { schema: { hide: true }, config }, async (_request, reply) => {
    const token = await demoToken?.().catch(() => undefined);
    if (!token) return reply.type('text/html; charset=utf-8').send(html);
    // A page holding a token is never cached.
    return reply
      .header('cache-control', 'no-store')
      .type('text/html; charset=utf-8')
      .send(docsPageHtml(version, token));
  });
  app.get(
    '/docs/js/scalar.js',
    { schema: { hide: true, querystring: BundleQuery }, config },
    async (request, reply) => {
      bundle ??= loadScalarBundle().catch((error: unknown) => {
        bundle = undefined;
        throw error;
      });
      const { etag, length, open } = await bundle;
      const { v } = request.query as { v?: string };
      reply.header('etag', etag).header('cache-control', v === version ? IMMUTABLE : 'no-cache');
      if (ifNoneMatchMatches(request.headers['if-none-match'], etag)) return reply.code(304).send();
      return reply.type('application/javascript; charset=utf-8').header('content-length', length).send(open());
    },
  );
}
