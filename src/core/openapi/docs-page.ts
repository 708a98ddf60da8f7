import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod, RouteOptions } from 'fastify';

/** The paths Scalar's Fastify plugin serves under `/docs` with the options below (a URL source). */
const DOCS_PATHS = ['/docs', '/docs/', '/docs/js/scalar.js'] as const;

const SCALAR_OPTIONS = {
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
};

type ScalarPlugin = (instance: object, options: object, done: (error?: Error) => void) => void;

/**
 * Scalar's handlers, by path. The plugin module holds its 4 MB browser bundle as a string literal
 * (about 17 MB of heap with its source), so it is imported on the first docs request, not at start:
 * a server nobody reads the docs of never holds it. The plugin is given a stand-in instance that
 * only records its routes; the recorded handlers then answer on the real request and reply.
 */
async function loadScalarHandlers(log: FastifyInstance['log']): Promise<Map<string, RouteHandlerMethod>> {
  const { default: scalar } = (await import('@scalar/fastify-api-reference')) as unknown as { default: ScalarPlugin };
  const handlers = new Map<string, RouteHandlerMethod>();
  const recorder = {
    log,
    initialConfig: {},
    hasPlugin: () => false,
    route: (options: RouteOptions) => handlers.set(options.url, options.handler),
  };
  await new Promise<void>((resolve, reject) =>
    scalar(recorder, SCALAR_OPTIONS, (error) => (error ? reject(error) : resolve())),
  );
  const missing = DOCS_PATHS.filter((path) => !handlers.has(path));
  if (missing.length > 0) throw new Error(`Scalar no longer serves ${missing.join(', ')}: update DOCS_PATHS`);
  return handlers;
}

/**
 * The interactive API reference (Scalar) at `/docs`, public, showing the v2 and v1 documents.
 * Everything it needs is served from this process (no CDN): the page, its script and the documents.
 */
export function registerDocsPage(app: FastifyInstance): void {
  let handlers: Promise<Map<string, RouteHandlerMethod>> | undefined;
  for (const url of DOCS_PATHS) {
    app.route({
      method: 'GET',
      url,
      schema: { hide: true },
      config: { access: 'public', cacheControl: 'no-cache' },
      async handler(this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
        handlers ??= loadScalarHandlers(app.log).catch((error: unknown) => {
          handlers = undefined;
          throw error;
        });
        const handler = (await handlers).get(url)!;
        return handler.call(this, request, reply);
      },
    });
  }
}
