import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../core/errors/app-error.ts';
import { GRAPHIQL_ASSETS_PREFIX, graphiqlFiles, type GraphiQLFiles } from './graphiql-assets.ts';

/** File names change with the package version or content, so a browser may keep them for a year. */
const ASSET_CACHE_CONTROL = 'public, max-age=31536000, immutable';

/**
 * The GraphiQL page (development tool), pointed at /graphql. Everything it loads comes from this
 * process (see graphiql-assets.ts): no CDN, no inline script or style, so its CSP can be 'self'.
 */
export function graphiqlHtml(files: Pick<GraphiQLFiles, 'styles' | 'scripts'>, presetHeaders?: string): string {
  const styles = files.styles.map((name) => `  <link rel="stylesheet" href="${GRAPHIQL_ASSETS_PREFIX}${name}">`);
  const scripts = files.scripts.map((name) => `  <script src="${GRAPHIQL_ASSETS_PREFIX}${name}"></script>`);
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>content-service GraphiQL</title>
  <link rel="icon" href="data:,">
${styles.join('\n')}
</head>
<body>
  <div id="graphiql"${presetHeaders === undefined ? '' : ` data-headers="${escapeAttribute(presetHeaders)}"`}>Loading GraphiQL…</div>
${scripts.join('\n')}
</body>
</html>
`;
}

function escapeAttribute(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;');
}

const AssetParams = Type.Object({ file: Type.String({ maxLength: 100 }) });

export interface GraphiQLOptions {
  /**
   * The Headers tab's text for this page view (a demo account's token in development, graphiql-demo-token.ts),
   * or undefined for an empty tab.
   */
  presetHeaders?: (() => Promise<string | undefined>) | undefined;
}

/**
 * GET /graphiql and the files it loads, all public (/graphql checks tokens). A page with preset headers
 * holds a token: it is never stored by a cache.
 */
export function registerGraphiQL(app: FastifyInstance, options: GraphiQLOptions = {}): void {
  const files = graphiqlFiles();
  const html = graphiqlHtml(files);
  app.get(
    '/graphiql',
    {
      config: { access: 'public' },
      schema: { hide: true, tags: ['GraphQL'], summary: 'GraphiQL, the in-browser GraphQL IDE' },
    },
    async (_request, reply) => {
      const headers = await options.presetHeaders?.();
      reply.type('text/html; charset=utf-8');
      if (headers === undefined) return reply.send(html);
      return reply.header('cache-control', 'no-store').send(graphiqlHtml(files, headers));
    },
  );
  app.get(
    `${GRAPHIQL_ASSETS_PREFIX}:file`,
    {
      config: { access: 'public', cacheControl: ASSET_CACHE_CONTROL },
      schema: {
        hide: true,
        tags: ['GraphQL'],
        summary: 'A script or style sheet of the GraphiQL page',
        params: AssetParams,
      },
    },
    (request, reply) => {
      const asset = files.assets.get((request.params as { file: string }).file)?.();
      if (!asset) throw AppError.notFound('GraphiQL file');
      // The ETag is computed once, with the file's first read; the caching hook then only compares it.
      return reply.type(asset.type).header('etag', asset.etag).send(asset.body);
    },
  );
}
