import scalar from '@scalar/fastify-api-reference';
import type { FastifyInstance, RouteOptions } from 'fastify';

/**
 * The interactive API reference (Scalar) at `/docs`, public, showing the v2 and v1 documents.
 * Everything it needs is served from this process (no CDN): the page, its script and the documents.
 */
export async function registerDocsPage(app: FastifyInstance): Promise<void> {
  await app.register(async (scope) => {
    // Scalar's routes declare no `config.access`, which the app requires of every route: this view
    // of the scope adds `public` to each route the plugin defines (the docs need no token).
    const publicRoutes = Object.create(scope) as FastifyInstance;
    publicRoutes.route = ((options: RouteOptions) =>
      scope.route({ ...options, config: { ...options.config, access: 'public', cacheControl: 'no-cache' } })) as FastifyInstance['route'];
    await new Promise<void>((resolve, reject) => {
      const plugin = scalar as unknown as (instance: FastifyInstance, options: object, done: (error?: Error) => void) => void;
      plugin(publicRoutes, {
        routePrefix: '/docs',
        configuration: {
          pageTitle: 'content-service API reference',
          // Served locally; no external fonts (the page must work without the internet).
          withDefaultFonts: false,
          // No hosted extras (AI agent, MCP generator, developer toolbar): they need the internet.
          showDeveloperTools: 'never',
          mcp: { disabled: true },
          agent: { disabled: true },
          // A URL source keeps the plugin from serving @fastify/swagger's raw, unversioned document.
          url: '/api/v2/openapi.json',
          sources: [
            { title: 'v2 (current)', slug: 'v2', url: '/api/v2/openapi.json', default: true, agent: { disabled: true } },
            { title: 'v1 (deprecated)', slug: 'v1', url: '/api/v1/openapi.json', agent: { disabled: true } },
          ],
        },
      }, (error?: Error) => (error ? reject(error) : resolve()));
    });
  });
}
