import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { strongEtag } from '../core/http/caching.ts';
import { AppError } from '../core/errors/app-error.ts';

/** Where `npm run build` (scripts/build-admin.ts) writes the console: `src/` and `dist/` sit at the same depth. */
export const ADMIN_BUILD_DIR = fileURLToPath(new URL('../../admin/build/', import.meta.url));

/** Each file's name carries its content's hash: a browser keeps it for a year and never asks again. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
const TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  txt: 'text/plain; charset=utf-8',
};

interface Asset {
  body: Buffer;
  gzip: Buffer | undefined;
  type: string;
  etag: string;
}

interface Build {
  index: Buffer;
  assets: Map<string, Asset>;
}

/** Reads the built console once (1 MB of scripts and their gzip copies), on its first request. */
function readBuild(dir: string): Build | undefined {
  const index = join(dir, 'index.html');
  if (!existsSync(index)) return undefined;
  const assets = new Map<string, Asset>();
  const assetsDir = join(dir, 'assets');
  for (const name of readdirSync(assetsDir)) {
    const type = TYPES[name.split('.').pop() ?? ''];
    if (!type) continue;
    const body = readFileSync(join(assetsDir, name));
    const gzipPath = join(assetsDir, `${name}.gz`);
    const gzip = existsSync(gzipPath) ? readFileSync(gzipPath) : undefined;
    assets.set(name, { body, gzip, type, etag: strongEtag(body) });
  }
  return { index: readFileSync(index), assets };
}

const acceptsGzip = (request: FastifyRequest) => /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''));

/**
 * The admin console (DECISIONS §20) at `/admin`: its page and its scripts, from the package's own files
 * (built by `npm run build` into admin/build/). The page may be cached but is revalidated; the scripts,
 * named by their hash, for a year, sent gzip-compressed to browsers that accept it. The console's CSP
 * (core/hardening/http-hardening.ts) allows scripts from this origin only. A checkout that was never
 * built answers 503 with the command that builds it.
 */
export function registerAdminConsole(app: FastifyInstance, options: { dir?: string } = {}): void {
  const dir = options.dir ?? ADMIN_BUILD_DIR;
  let build: Build | undefined;
  const built = (): Build => {
    build ??= readBuild(dir);
    if (!build) throw new AppError('SERVICE_UNAVAILABLE', 'The admin console is not built: run `npm run build`');
    return build;
  };
  const page = { access: 'public', cacheControl: 'no-cache' } as const;
  app.get('/admin', { schema: { hide: true }, config: page }, (_request, reply) => reply.redirect('/admin/', 301));
  app.get('/admin/', { schema: { hide: true }, config: page }, (_request, reply) =>
    reply.type('text/html; charset=utf-8').send(built().index),
  );
  app.get(
    '/admin/assets/:file',
    {
      schema: { hide: true, params: Type.Object({ file: Type.String({ pattern: '^[A-Za-z0-9_.-]+$' }) }) },
      config: { access: 'public', cacheControl: IMMUTABLE },
    },
    (request: FastifyRequest, reply: FastifyReply) => {
      const asset = built().assets.get((request.params as { file: string }).file);
      if (!asset) throw AppError.notFound('Admin console file');
      reply.type(asset.type).header('vary', 'Accept-Encoding');
      if (asset.gzip && acceptsGzip(request)) {
        // The ETag names the representation: the compressed bytes get their own.
        return reply
          .header('content-encoding', 'gzip')
          .header('etag', `${asset.etag.slice(0, -1)}-gz"`)
          .send(asset.gzip);
      }
      return reply.header('etag', asset.etag).send(asset.body);
    },
  );
}
