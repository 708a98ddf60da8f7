import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Readable } from 'node:stream';
import { Type } from 'typebox';
import { AppError } from '../../core/errors/app-error.ts';
import { EmptyBody, Id } from '../../core/http/schemas.ts';
import { servesVersions } from '../../core/http/versioning.ts';
import type { ImportsService } from './imports.service.ts';
import type { ImportRow } from './imports.table.ts';

const ImportParams = Type.Object({ importId: Id });
const ImportQuery = Type.Object({
  resource: Type.Union([Type.Literal('products'), Type.Literal('users'), Type.Literal('posts')]),
  mode: Type.Optional(Type.Union([Type.Literal('create'), Type.Literal('upsert')])),
  dryRun: Type.Optional(Type.Boolean()),
});
const ImportView = Type.Object({
  id: Type.Integer(),
  resource: Type.String(),
  mode: Type.String(),
  dryRun: Type.Boolean(),
  status: Type.String(),
  rows: Type.Object({ read: Type.Integer(), created: Type.Integer(), updated: Type.Integer(), failed: Type.Integer() }),
  createdAt: Type.String(),
  startedAt: Type.Union([Type.String(), Type.Null()]),
  finishedAt: Type.Union([Type.String(), Type.Null()]),
  _links: Type.Object({ self: Type.Object({ href: Type.String() }), errors: Type.Object({ href: Type.String() }) }),
});
/** Error lines read per statement while a report streams. */
const ERRORS_PAGE = 1000;
const MEDIA = { 'text/csv': 'csv', 'application/x-ndjson': 'ndjson' } as const;

function viewOf(job: ImportRow, prefix: string) {
  const self = `${prefix}/imports/${job.id}`;
  return {
    id: job.id,
    resource: job.resource,
    mode: job.mode,
    dryRun: Boolean(job.dry_run),
    status: job.status === 'uploading' ? 'queued' : job.status,
    rows: { read: job.rows_read, created: job.rows_created, updated: job.rows_updated, failed: job.rows_failed },
    createdAt: job.created_at,
    startedAt: job.started_at,
    finishedAt: job.finished_at,
    _links: { self: { href: self }, errors: { href: `${self}/errors` } },
  };
}

/** Imports are v2's: not in v1's route table, refused in a negotiated v1 (core/http/versioned-api.ts). */
const VERSIONS = [2] as const;

/** REST adapter of imports (DECISIONS §18, v2): the upload streams into a stored job the workers run. */
export const importsRoutes: FastifyPluginAsyncTypebox<{ imports: ImportsService }> = async (app, { imports }) => {
  if (!servesVersions(app, VERSIONS)) return;
  const { maxBytes, uploadTimeoutMs } = imports.settings;
  // The body is the upload itself, read as a stream by the service (never held whole).
  app.addContentTypeParser(Object.keys(MEDIA), (_request, payload, done) => done(null, payload));
  app.post(
    '/imports',
    {
      config: {
        access: 'user',
        // A large file over an ordinary link takes minutes, not the other requests' REQUEST_TIMEOUT_MS.
        bodyTimeoutMs: uploadTimeoutMs,
        openapi: { versions: VERSIONS, requestMedia: Object.keys(MEDIA) },
      },
      schema: {
        tags: ['imports'],
        summary: 'Import rows from a CSV or NDJSON upload as a background job (v2)',
        querystring: ImportQuery,
        headers: Type.Object({
          'idempotency-key': Type.Optional(Type.String({ minLength: 1, maxLength: 200, pattern: '^[\\x21-\\x7E]+$' })),
        }),
        response: { 202: ImportView },
      },
    },
    async (request, reply) => {
      const type = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      const format = MEDIA[type as keyof typeof MEDIA];
      if (!format) throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send text/csv or application/x-ndjson');
      const length = Number(request.headers['content-length']);
      if (Number.isFinite(length) && length > maxBytes)
        throw new AppError('PAYLOAD_TOO_LARGE', `An import holds at most ${maxBytes} bytes`);
      const job = await imports.createImport(request.principal, {
        resource: request.query.resource,
        mode: request.query.mode ?? 'create',
        dryRun: request.query.dryRun === true,
        format,
        body: request.body as Readable,
        idempotencyKey: request.headers['idempotency-key'],
      });
      const view = viewOf(job, request.apiPrefix);
      return reply.code(202).header('location', view._links.self.href).send(view);
    },
  );

  app.get(
    '/imports/:importId',
    {
      config: { access: 'user', openapi: { versions: VERSIONS } },
      schema: {
        tags: ['imports'],
        summary: 'An import job and its counts (v2)',
        params: ImportParams,
        response: { 200: ImportView },
      },
    },
    async (request) => {
      return viewOf(await imports.getImport(request.principal, request.params.importId), request.apiPrefix);
    },
  );

  app.get(
    '/imports/:importId/errors',
    {
      // Streamed as it is read: no ETag of a body not yet read (and no 304); a running job's report grows.
      config: {
        access: 'user',
        openapi: { versions: VERSIONS, responseMedia: { 200: ['application/x-ndjson'] }, stream: true },
      },
      schema: {
        tags: ['imports'],
        summary: "An import's error report: NDJSON {line, field, message} (v2)",
        params: ImportParams,
      },
    },
    async (request, reply) => {
      const { principal } = request;
      const id = request.params.importId;
      // The first page before answering, so a job the caller may not see is a 404 rather than a cut download.
      const first = await imports.readErrors(principal, id, 0, ERRORS_PAGE);
      async function* pages(): AsyncGenerator<string> {
        for (let page = first; ; page = await imports.readErrors(principal, id, page.at(-1)!.line, ERRORS_PAGE)) {
          if (page.length > 0) yield page.map((error) => `${JSON.stringify(error)}\n`).join('');
          if (page.length < ERRORS_PAGE) return;
        }
      }
      // A report may hold a line for every row of a million-row upload: each page is read when the client
      // has taken the one before (one page buffered), never the whole report.
      const body = Readable.from(pages(), { objectMode: false, highWaterMark: 1 });
      return reply.type('application/x-ndjson; charset=utf-8').header('cache-control', 'private, no-cache').send(body);
    },
  );

  app.post(
    '/imports/:importId/cancel',
    {
      config: {
        access: 'user',
        openapi: {
          versions: VERSIONS,
          errors: {
            409: {
              description: 'The job has finished (`INVALID_STATE`)',
              code: 'INVALID_STATE',
              message: 'Import 7 is done and cannot be cancelled',
            },
          },
        },
      },
      schema: {
        tags: ['imports'],
        summary: 'Cancel an import between chunks (v2)',
        params: ImportParams,
        body: EmptyBody,
        response: { 202: ImportView },
      },
    },
    async (request, reply) => {
      const view = viewOf(await imports.cancelImport(request.principal, request.params.importId), request.apiPrefix);
      // The job to watch, as the upload's 202 names it (the API document requires it on every 202).
      return reply.code(202).header('location', view._links.self.href).send(view);
    },
  );
};
