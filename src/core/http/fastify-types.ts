import type { Principal } from '../access/principal.ts';

/** Who may call a route. Every route declares one; the app refuses to start otherwise. */
export type Access = 'public' | 'user' | 'admin';

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
    /** The route checks the caller's current rights per operation (GraphQL: mutations), not per request. */
    rightsPerOperation?: boolean;
    /** Overrides the default `Cache-Control` of a successful GET (`private, no-cache`). */
    cacheControl?: string;
  }
  /** Documentation-only keys read by the OpenAPI generator. */
  interface FastifySchema {
    hide?: boolean;
    tags?: string[];
    summary?: string;
    description?: string;
  }
  interface FastifyRequest {
    principal: Principal | null;
    /** The path prefix the request used (`/api`, `/api/v1` or `/api/v2`), for links and `Location`. */
    apiPrefix: string;
    /** The REST version this request is served as (core/http/versioning.ts); 1 outside `/api`. */
    apiVersion: 1 | 2;
  }
}
