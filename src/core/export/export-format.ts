import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';

export type ExportFormat = 'csv' | 'ndjson';

export const MEDIA_TYPES: Readonly<Record<ExportFormat, string>> = {
  csv: 'text/csv; charset=utf-8',
  ndjson: 'application/x-ndjson; charset=utf-8',
};

/** The `format` query parameter every exportable list declares. */
export const FormatParameter = Type.Optional(
  Type.Union([Type.Literal('csv'), Type.Literal('ndjson')], {
    description:
      'Every matching row as a CSV or NDJSON download instead of one page (v2; or send `Accept: text/csv` / `application/x-ndjson`)',
  }),
);

/**
 * The export a v2 list request asks for: `format=` wins over `Accept` (DECISIONS §18); undefined for
 * a page. An `Accept` counts when it names one of the two media types (parameters and `q` aside).
 */
export function exportFormatOf(request: FastifyRequest): ExportFormat | undefined {
  if (request.apiVersion !== 2) return undefined;
  const format = (request.query as { format?: unknown } | undefined)?.format;
  if (format === 'csv' || format === 'ndjson') return format;
  const accept = request.headers.accept;
  if (typeof accept !== 'string') return undefined;
  const types = accept.split(',').map((part) => part.split(';')[0]!.trim().toLowerCase());
  if (types.includes('text/csv')) return 'csv';
  if (types.includes('application/x-ndjson')) return 'ndjson';
  return undefined;
}
