// The reply type imported under its own name: the augmentation below does not bring it into scope in every program.
import type { FastifyReply as Reply } from 'fastify';
import type { Principal } from '../access/principal.ts';

/** Who may call a route. Every route declares one; the app refuses to start otherwise. */
export type Access = 'public' | 'user' | 'admin';

/** What the OpenAPI document says of a route beyond its schemas (read by core/openapi only). */
export interface OperationDocs {
  /** Error statuses this operation answers beyond the defaults every operation has (409, 412...). */
  errors?: Record<number, { description: string; code: string; message: string }>;
  /** A write that takes an `If-Match` precondition (412 when it does not match). */
  ifMatch?: boolean;
  /** A raw (non-JSON) request body, in these media types. */
  requestMedia?: readonly string[];
  /** Statuses whose body is not JSON: the media types they are sent in. */
  responseMedia?: Record<number, readonly string[]>;
  /** The API versions whose document shows the operation (all when absent): v2-only routes answer 404 in v1. */
  versions?: readonly (1 | 2)[];
  /** A GET answered by a stream (Server-Sent Events, a report sent as it is read): no ETag and no 304. */
  stream?: boolean;
}

/** A GraphQL request as the access log and `/metrics` describe it. */
export interface GraphQLOperationFacts {
  /**
   * The operation's name, known only once the document passed validation (a GraphQL name, so no
   * secret), cut to 64 characters; `(anonymous)` for an unnamed one; `(none)` when it never got there.
   */
  name: string;
  type: 'query' | 'mutation' | 'subscription' | '(none)';
  /** `success`: ran, no errors; `error`: validated, then refused or answered with errors; `rejected`: refused before validation passed. */
  outcome: 'success' | 'error' | 'rejected';
}

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
    /** The route checks the caller's current rights per operation (GraphQL: mutations), not per request. */
    rightsPerOperation?: boolean;
    /** Overrides the default `Cache-Control` of a successful GET (`private, no-cache`). */
    cacheControl?: string;
    /**
     * A cursor list that is not a queried list of §12 (no `count`) but is exportable all the same (§18:
     * the audit): `format=csv|ndjson` added to it (core/export).
     */
    exportable?: boolean;
    /**
     * How long the route's request body may take to arrive, in ms, when more than `REQUEST_TIMEOUT_MS`
     * (an import's upload): core/http/body-deadline.ts.
     */
    bodyTimeoutMs?: number;
    /** Documentation-only facts for the OpenAPI document. */
    openapi?: OperationDocs;
    /**
     * What one request of the route counts against the rate limit, in plain requests (default 1):
     * more for a request that reads every matching row (an aggregate, a list's facets).
     */
    rateLimitWeight?: number | ((request: FastifyRequest) => number);
  }
  interface FastifyInstance {
    /** Counts `weight` more units against the request's rate-limit budget (a batch's operations); 429 when spent. */
    chargeRateLimit?: (request: FastifyRequest, reply: Reply, weight: number) => Promise<void>;
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
    /** What the GraphQL endpoint made of the request (set by src/graphql/), for the access log and metrics; null elsewhere. */
    graphqlOperation: GraphQLOperationFacts | null;
  }
}
