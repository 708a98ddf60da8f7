import type { FastifyInstance } from 'fastify';

/**
 * One access-log line per answered request, at `info`: method, URL, status, time and request id,
 * instead of Fastify's two lines (one on arrival, one on completion), which made request logging
 * the largest single cost of a small GET (bench/RESULTS.md). The arrival line still exists at
 * `debug` (the graceful-shutdown suite uses it to list the requests a server accepted); its hook is
 * installed only when the configured level shows it.
 */
export function registerAccessLog(app: FastifyInstance): void {
  if ((app.log as unknown as { isLevelEnabled(level: string): boolean }).isLevelEnabled?.('debug')) {
    app.addHook('onRequest', (request, _reply, done) => {
      request.log.debug({ req: request }, 'incoming request');
      done();
    });
  }
  app.addHook('onResponse', (request, reply, done) => {
    request.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
    done();
  });
}
