import { createInterface } from 'node:readline';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { parse } from 'csv-parse';
import { AppError } from '../../core/errors/app-error.ts';
import { unescapeFormula } from '../../core/export/csv-cells.ts';

export type UploadFormat = 'csv' | 'ndjson';

/** A stored row: its fields, or why it cannot be written (reported with its line, the rest go in). */
export interface UploadRow {
  line: number;
  data?: Record<string, unknown>;
  error?: { field: string | null; message: string };
}

/** A record larger than this is refused whole (a 10,000-column header of short names fits; a runaway quote does not). */
const MAX_RECORD_BYTES = 1024 * 1024;

/**
 * Counts the bytes (413 past `maxBytes`) and checks they are UTF-8 as they stream by (422 naming the
 * byte offset), so no part of the upload is ever held whole.
 */
class CheckedBytes extends Transform {
  #bytes = 0;
  readonly #decoder = new TextDecoder('utf-8', { fatal: true });
  readonly #maxBytes: number;
  constructor(maxBytes: number) {
    super();
    this.#maxBytes = maxBytes;
  }
  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.#bytes += chunk.length;
    if (this.#bytes > this.#maxBytes)
      return done(new AppError('PAYLOAD_TOO_LARGE', `An import holds at most ${this.#maxBytes} bytes`));
    try {
      this.#decoder.decode(chunk, { stream: true });
    } catch {
      return done(
        AppError.validation([{ field: 'body', message: `is not UTF-8 (near byte ${this.#bytes - chunk.length})` }]),
      );
    }
    done(null, chunk);
  }
}

/** A CSV text cell as the value its field takes: empty is absent, a number field's digits a number. */
function valueOf(cell: string, type: string | undefined): unknown {
  const text = unescapeFormula(cell);
  if ((type === 'number' || type === 'integer') && text.trim() !== '' && Number.isFinite(Number(text)))
    return Number(text);
  if (type === 'boolean' && (text === 'true' || text === 'false')) return text === 'true';
  return text;
}

async function* csvRows(input: Readable, fields: Readonly<Record<string, string>>): AsyncGenerator<UploadRow> {
  const parser = input.pipe(
    parse({
      info: true,
      relax_column_count: true,
      bom: true,
      max_record_size: MAX_RECORD_BYTES,
      skip_empty_lines: true,
    }),
  );
  input.on('error', (error) => parser.destroy(error));
  let header: string[] | undefined;
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      if (!header) {
        header = record.map((name) => name.trim());
        const unknown = header.filter((name) => !(name in fields));
        if (unknown.length > 0)
          throw AppError.validation(
            unknown.slice(0, 20).map((name) => ({ field: name.slice(0, 100), message: 'is not a writable column' })),
            'The CSV header names columns that cannot be written',
          );
        continue;
      }
      const line = info.lines;
      if (record.length !== header.length) {
        yield { line, error: { field: null, message: `has ${record.length} cells; the header has ${header.length}` } };
        continue;
      }
      const nul = record.findIndex((cell) => cell.includes('\u0000'));
      if (nul >= 0) {
        yield { line, error: { field: header[nul]!, message: 'contains a NUL character' } };
        continue;
      }
      const data: Record<string, unknown> = {};
      record.forEach((cell, i) => {
        if (cell !== '') data[header![i]!] = valueOf(cell, fields[header![i]!]);
      });
      yield { line, data };
    }
  } catch (error) {
    if (error instanceof AppError) throw error;
    const { code, lines } = error as { code?: string; lines?: number; message?: string };
    if (code?.startsWith('CSV_'))
      throw AppError.validation(
        [{ field: 'body', message: `${(error as Error).message}`.slice(0, 300) }],
        `The CSV is malformed${lines ? ` at line ${lines}` : ''}`,
      );
    throw error;
  }
  if (!header) throw AppError.validation([{ field: 'body', message: 'has no header row' }]);
}

async function* ndjsonRows(input: Readable): AsyncGenerator<UploadRow> {
  const lines = createInterface({ input, crlfDelay: Infinity });
  let line = 0;
  for await (const text of lines) {
    line += 1;
    if (text.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      yield { line, error: { field: null, message: 'is not JSON' } };
      continue;
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      yield { line, error: { field: null, message: 'is not a JSON object' } };
      continue;
    }
    if (text.includes('\\u0000')) {
      yield { line, error: { field: null, message: 'contains a NUL character' } };
      continue;
    }
    yield { line, data: value as Record<string, unknown> };
  }
}

/**
 * The rows of an upload as it streams in (DECISIONS §18): CSV by `csv-parse` (the header, line 1,
 * names the fields; an unknown one is 422 up front), NDJSON by lines. Malformed CSV is a 422 naming
 * its line; a bad row is yielded with its error, to fail alone.
 */
export function readUpload(
  body: Readable,
  format: UploadFormat,
  fields: Readonly<Record<string, string>>,
  maxBytes: number,
): AsyncGenerator<UploadRow> {
  const checked = body.pipe(new CheckedBytes(maxBytes));
  body.on('error', (error) => checked.destroy(error));
  return format === 'csv' ? csvRows(checked, fields) : ndjsonRows(checked);
}
