import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors/app-error.ts';

/**
 * JSON bodies through Fastify's own (prototype-poisoning safe) parser, except that an empty body
 * is accepted as "no body": clients often send `Content-Type: application/json` on bodiless POSTs.
 */
export function registerJsonBody(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  // Only JSON is accepted by default (415 otherwise); routes taking images add their own parsers.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    if (text.trim() === '') return done(null, undefined);
    parse(request, text, (error, value) => {
      if (error) return done(new AppError('BAD_REQUEST', 'Request body is not valid JSON'), undefined);
      done(null, value);
    });
  });
}
