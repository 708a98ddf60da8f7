import { createHash } from 'node:crypto';
import { createReadStream, readFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pipeline, Transform, type Readable, type TransformCallback } from 'node:stream';
import { fileURLToPath } from 'node:url';

/**
 * Scalar's browser bundle (the API reference's 4 MB standalone script), read from the file of its Fastify
 * plugin without importing that module: the plugin keeps the bundle as one string literal in its source,
 * and importing it would hold the module's source and the string in the heap for the life of the process.
 * Here the literal's place in the file is found once, reading it through one small buffer, and each
 * request streams that range of the file, undoing the literal's escapes in each chunk as it passes.
 */
export interface ScalarBundle {
  /** Strong validator of the bundle's bytes (the one the caching hook would compute from them). */
  etag: string;
  /** The bundle's length in bytes, once unescaped. */
  length: number;
  /** A stream of the bundle's bytes. */
  open(): Readable;
}

/** The literal's first bytes (the module's only `standalone_default`) and what follows its closing quote. */
const START = Buffer.from('var standalone_default = "');
// A raw line break cannot be inside a string literal, so the first `";` + line break ends it.
const END = Buffer.from('";\n');
const CHUNK = 64 * 1024;
const BACKSLASH = 0x5c;

/** The escapes the plugin's build writes in the literal, and the byte each stands for. */
const ESCAPED = new Map([
  [0x6e /* n */, 0x0a],
  [0x72 /* r */, 0x0d],
  [0x74 /* t */, 0x09],
  [0x22 /* " */, 0x22],
  [0x27 /* ' */, 0x27],
  [0x60 /* ` */, 0x60],
  [BACKSLASH, BACKSLASH],
]);

/**
 * Undoes the escapes of a string literal's body, chunk after chunk, in place (the result is never longer);
 * an escape may straddle two chunks. Any other escape (`\u`, `\x`, a line continuation) throws: a build of
 * the plugin that writes one fails on the first docs request (and in the tests) instead of serving a
 * broken script.
 */
export class LiteralUnescaper {
  #pendingEscape = false;

  /** The chunk's bytes unescaped, at its start (a view of the same memory). */
  unescape(chunk: Buffer): Buffer {
    let written = 0;
    let at = 0;
    if (this.#pendingEscape && chunk.length > 0) {
      chunk[written++] = unescaped(chunk[0]!);
      at = 1;
      this.#pendingEscape = false;
    }
    while (at < chunk.length) {
      const escape = chunk.indexOf(BACKSLASH, at);
      const plainEnd = escape === -1 ? chunk.length : escape;
      written += chunk.copy(chunk, written, at, plainEnd);
      if (escape === -1) break;
      if (escape + 1 === chunk.length) {
        this.#pendingEscape = true;
        break;
      }
      chunk[written++] = unescaped(chunk[escape + 1]!);
      at = escape + 2;
    }
    return chunk.subarray(0, written);
  }

  /** Throws when the literal ended between a backslash and its letter. */
  end(): void {
    if (this.#pendingEscape) throw new Error('Scalar bundle: the literal ends inside an escape');
  }
}

function unescaped(letter: number): number {
  const byte = ESCAPED.get(letter);
  if (byte === undefined) throw new Error(`Scalar bundle: unsupported escape \\${String.fromCharCode(letter)}`);
  return byte;
}

/** The unescaping as a stream stage (each chunk is the file stream's own buffer, rewritten in place). */
class UnescapeStream extends Transform {
  readonly #unescaper = new LiteralUnescaper();

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    try {
      done(null, this.#unescaper.unescape(chunk));
    } catch (error) {
      done(error as Error);
    }
  }

  override _flush(done: TransformCallback): void {
    try {
      this.#unescaper.end();
      done();
    } catch (error) {
      done(error as Error);
    }
  }
}

/** Reads the file's bytes [from, to) through one reused buffer, a chunk at a time. */
async function readThrough(file: string, from: number, to: number, visit: (chunk: Buffer) => void): Promise<void> {
  const handle = await open(file);
  const buffer = Buffer.allocUnsafe(CHUNK);
  try {
    for (let position = from; position < to;) {
      const { bytesRead } = await handle.read(buffer, 0, Math.min(CHUNK, to - position), position);
      if (bytesRead === 0) throw new Error(`Scalar bundle: ${file} ended early`);
      visit(buffer.subarray(0, bytesRead));
      position += bytesRead;
    }
  } finally {
    await handle.close();
  }
}

/** Where `marker` first starts in the file at or after `from`; -1 if nowhere. */
async function offsetOf(file: string, marker: Buffer, from: number): Promise<number> {
  const handle = await open(file);
  const buffer = Buffer.allocUnsafe(CHUNK);
  try {
    for (let position = from; ;) {
      const { bytesRead } = await handle.read(buffer, 0, CHUNK, position);
      const found = buffer.subarray(0, bytesRead).indexOf(marker);
      if (found !== -1) return position + found;
      if (bytesRead < CHUNK) return -1;
      // The next read starts early enough to see a marker that straddles the two.
      position += bytesRead - (marker.length - 1);
    }
  } finally {
    await handle.close();
  }
}

/** The installed plugin's module file. */
function pluginFile(): string {
  return fileURLToPath(import.meta.resolve('@scalar/fastify-api-reference'));
}

/** The installed plugin's version (from its manifest): the bundle changes with it. */
export function scalarPluginVersion(): string {
  const manifest = join(dirname(dirname(pluginFile())), 'package.json');
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}

/** Locates the bundle in the installed plugin's file and measures it (one buffer, nothing kept). */
export async function loadScalarBundle(): Promise<ScalarBundle> {
  const file = pluginFile();
  const marker = await offsetOf(file, START, 0);
  if (marker === -1) throw new Error(`Scalar bundle: no standalone_default literal in ${file}`);
  const start = marker + START.length;
  const end = await offsetOf(file, END, start);
  if (end <= start) throw new Error(`Scalar bundle: the standalone_default literal in ${file} does not end`);
  const digest = createHash('sha1');
  const unescaper = new LiteralUnescaper();
  let length = 0;
  await readThrough(file, start, end, (chunk) => {
    const bytes = unescaper.unescape(chunk);
    digest.update(bytes);
    length += bytes.length;
  });
  unescaper.end();
  // pipeline: a read error reaches the stream the reply sends (and ends it), not an unhandled event.
  const openBundle = (): Readable =>
    pipeline(createReadStream(file, { start, end: end - 1, highWaterMark: CHUNK }), new UnescapeStream(), () => {});
  return { etag: `"${digest.digest('base64url')}"`, length, open: openBundle };
}
