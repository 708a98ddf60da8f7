import { PassThrough, type Writable } from 'node:stream';
import { stringify } from 'csv-stringify';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod, RouteOptions } from 'fastify';
import type { TSchema } from 'typebox';
import { inOuterTransaction } from '../db/outer-transaction.ts';
import { AppError } from '../errors/app-error.ts';
import { escapeFormula } from './csv-cells.ts';
import { csvColumnsOf } from './export-columns.ts';
import { exportFormatOf, FormatParameter, MEDIA_TYPES, type ExportFormat } from './export-format.ts';

/** DECISIONS §18: an export holds at most this many rows (more: 422, naming a narrower filter). */
export const MAX_EXPORT_ROWS = 1_000_000;

type ObjectSchema = TSchema & { properties?: Record<string, TSchema & { maximum?: number }> };
type Page = { data: Record<string, unknown>[]; pagination: { total?: number; nextCursor: string | null } };

/**
 * A v2 list of §12: a GET whose query declares `count` and `cursor` (queried pages, list-page.ts); or
 * another cursor list its route marks `exportable` (the audit, §19).
 */
function isQueriedList(route: RouteOptions): boolean {
  const methods = [route.method].flat();
  const query = route.schema?.querystring as ObjectSchema | undefined;
  if (!methods.includes('GET') || query?.properties?.cursor === undefined) return false;
  return query.properties.count !== undefined || route.config?.exportable === true;
}

/** `format` added to the list's declared parameters (and to each version's shape, for the documents). */
function withFormat(query: ObjectSchema): ObjectSchema {
  const versions = (query as Record<string, unknown>)['x-api-versions'] as Record<string, ObjectSchema> | undefined;
  return {
    ...query,
    properties: { ...query.properties, format: FormatParameter },
    ...(versions ? { 'x-api-versions': { ...versions, 2: withFormat(versions[2]!) } } : {}),
  } as ObjectSchema;
}

/** The download's name: the list's last fixed path segment (`entries` of `/accounts/:accountId/entries`). */
function fileNameOf(url: string, format: ExportFormat): string {
  const segment =
    url
      .split('/')
      .filter((part) => part && !part.startsWith(':'))
      .at(-1) ?? 'export';
  return `${segment}.${format === 'csv' ? 'csv' : 'ndjson'}`;
}

/** Writes one chunk, waiting for the reader when the stream's buffer is full (backpressure). */
async function write(stream: Writable, chunk: unknown): Promise<void> {
  if (stream.destroyed) throw new Error('export stream closed');
  if (stream.write(chunk)) return;
  // One listener pair per wait, both removed once either fires (a race of `once` calls left the loser behind).
  await new Promise<void>((resolve) => {
    const done = () => {
      stream.off('drain', done);
      stream.off('close', done);
      resolve();
    };
    stream.on('drain', done);
    stream.on('close', done);
  });
}

function outputOf(
  format: ExportFormat,
  columns: string[],
): { stream: Writable & NodeJS.ReadableStream; row(item: Record<string, unknown>): unknown } {
  if (format === 'ndjson') {
    const stream = new PassThrough();
    return { stream, row: (item) => `${JSON.stringify(item)}\n` };
  }
  const stream = stringify({
    header: true,
    columns,
    cast: {
      string: (value) => escapeFormula(value),
      boolean: (value) => String(value),
      object: (value) => escapeFormula(JSON.stringify(value)),
    },
  });
  return { stream, row: (item) => item };
}

/**
 * Every v2 list of §12 (DECISIONS §18) answers `format=csv|ndjson` (or such an `Accept`) with every
 * matching row: its own handler is run page after page by cursor (same filters, sort, `fields` and
 * permissions), in one read-only snapshot transaction, and each page's items are written to the
 * response stream as the client takes them. Installed on every route added after it.
 */
export function registerListExport(app: FastifyInstance, db: object): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    if (!isQueriedList(route)) return;
    const query = route.schema!.querystring as ObjectSchema;
    route.schema = { ...route.schema, querystring: withFormat(query) };
    const pageLimit = query.properties?.limit?.maximum ?? 100;
    const response = (route.schema.response as Record<string, TSchema> | undefined)?.[200];
    const handler = route.handler as RouteHandlerMethod;
    route.handler = function (this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
      const format = exportFormatOf(request);
      if (!format) return handler.call(this, request, reply);
      const asked = { ...(request.query as Record<string, unknown>) };
      for (const name of ['format', 'page', 'offset', 'limit', 'cursor', 'count', 'facets']) delete asked[name];
      const pageAt = async (cursor: string | undefined): Promise<Page> => {
        request.query = { ...asked, limit: pageLimit, count: cursor ? 'none' : 'exact', ...(cursor ? { cursor } : {}) };
        return (await handler.call(this, request, reply)) as Page;
      };
      const columns = format === 'csv' ? csvColumnsOf(response, asked.fields as string | undefined) : [];
      return new Promise((resolve, reject) => {
        let sent = false;
        const output = outputOf(format, columns);
        inOuterTransaction(
          db,
          async () => {
            let page = await pageAt(undefined);
            if ((page.pagination.total ?? 0) > MAX_EXPORT_ROWS)
              throw AppError.validation(
                [{ field: 'filter', message: `matches more than ${MAX_EXPORT_ROWS} rows; narrow the filter` }],
                'Too many rows to export',
              );
            reply
              .code(200)
              .type(MEDIA_TYPES[format])
              .header('content-disposition', `attachment; filename="${fileNameOf(route.url, format)}"`);
            sent = true;
            resolve(reply.send(output.stream));
            for (;;) {
              for (const item of page.data) await write(output.stream, output.row(item));
              if (!page.pagination.nextCursor) break;
              page = await pageAt(page.pagination.nextCursor);
            }
            output.stream.end();
          },
          { snapshot: true },
        ).catch((error: unknown) => {
          if (!sent) reject(error);
          else output.stream.destroy(error as Error);
        });
      });
    };
  });
}
