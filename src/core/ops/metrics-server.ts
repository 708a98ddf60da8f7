import type { Server } from 'node:http';
import type { MetricsExporter } from './metrics.ts';

/**
 * The listener of METRICS_PORT: `GET /metrics` and nothing else, without a token (the port is
 * reachable by the scraper only). `server.ts` makes it listen and closes it on shutdown.
 *
 * node:http is taken with `process.getBuiltinModule`, not an ESM import: an import builds the module's
 * namespace from every export, and its lazy `WebSocket` export loads Node's copy of undici (fetch,
 * WebSocket, web streams), which the service never uses: megabytes of RSS (src/app-footprint.test.ts
 * keeps them out). Fastify takes node:http with `require`, which builds no namespace.
 */
export function createMetricsServer(exporter: MetricsExporter): Server {
  return process.getBuiltinModule('node:http').createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found\n');
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response
        .writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' })
        .end('Method not allowed\n');
      return;
    }
    exporter.render().then(
      (text) =>
        response
          .writeHead(200, { 'content-type': exporter.contentType, 'cache-control': 'no-store' })
          .end(request.method === 'HEAD' ? undefined : text),
      () => response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('Metrics unavailable\n'),
    );
  });
}
