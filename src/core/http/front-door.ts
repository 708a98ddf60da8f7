import { readFileSync } from 'node:fs';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** The paths that answer the index: the root, and the API's bare prefixes (which route nothing else). */
export const FRONT_DOOR_PATHS = ['/', '/api', '/api/v1', '/api/v2'] as const;

export interface FrontDoorOptions {
  /** GraphiQL is served (development, or GRAPHIQL=true): the index links it. */
  graphiql: boolean;
}

export interface FrontDoorIndex {
  name: string;
  version: string;
  _links: Record<string, { href: string }>;
}

/** The package's name and version, read once (`src/` and the compiled `dist/` sit at the same depth). */
const PACKAGE = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
  name: string;
  version: string;
};

export function frontDoorIndex(options: FrontDoorOptions): FrontDoorIndex {
  const links: Record<string, { href: string }> = {
    api: { href: '/api/v2' },
    docs: { href: '/docs' },
    openapi: { href: '/api/v2/openapi.json' },
    graphql: { href: '/graphql' },
  };
  if (options.graphiql) links.graphiql = { href: '/graphiql' };
  links.health = { href: '/healthz' };
  return { name: PACKAGE.name, version: PACKAGE.version, _links: links };
}

/**
 * DECISIONS §1, front door: `GET /` answers a small JSON index of where everything is; a browser (an
 * `Accept` that prefers HTML to JSON) is sent to the API reference at `/docs` instead. The API's bare
 * prefixes answer the same, so `/api` is a pointer rather than a 404. The index is navigation, like the
 * OpenAPI documents, not a REST resource: no version of the API documents it.
 */
export function registerFrontDoor(app: FastifyInstance, options: FrontDoorOptions): void {
  const index = frontDoorIndex(options);
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    reply.header('vary', 'Accept');
    if (prefersHtml(request.headers.accept)) return reply.redirect('/docs', 302);
    return index;
  };
  for (const url of FRONT_DOOR_PATHS) {
    app.get(url, { config: { access: 'public' }, schema: { hide: true } }, handler);
  }
}

/**
 * Whether `Accept` rates `text/html` above `application/json`, each by its most specific matching
 * range (RFC 9110 §12.5.1): a browser's `text/html,...,*\/*;q=0.8` does; curl's and fetch's `*\/*`
 * (a tie) and no header at all do not.
 */
export function prefersHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  const ranges = accept.split(',').map((part) => {
    const [range = '', ...parameters] = part.split(';').map((piece) => piece.trim().toLowerCase());
    const q = parameters.find((parameter) => parameter.startsWith('q='));
    const quality = q === undefined ? 1 : Number(q.slice(2));
    return { range, quality: Number.isFinite(quality) ? quality : 0 };
  });
  return qualityOf('text/html', ranges) > qualityOf('application/json', ranges);
}

function qualityOf(type: string, ranges: readonly { range: string; quality: number }[]): number {
  const [major] = type.split('/');
  for (const candidate of [type, `${major}/*`, '*/*']) {
    const match = ranges.find(({ range }) => range === candidate);
    if (match) return match.quality;
  }
  return 0;
}
