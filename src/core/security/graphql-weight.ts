import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parse, type DocumentNode, type GraphQLSchema } from 'graphql';
// The cost model lives with GraphQL; the rate limiter only needs its arithmetic.
import { operationCost } from '../../graphql/cost.ts';
import type { RateLimiter } from './rate-limit.ts';

const GRAPHQL_PATH = '/graphql';
/** The same token cap the GraphQL endpoint parses with. */
const MAX_TOKENS = 10_000;
const DOCUMENT_CACHE_SIZE = 500;

export interface GraphQLWeightSettings {
  /** An operation counts as ceil(cost / unit) requests, at least one. */
  costUnit: number;
  /** Costs above this are refused by GraphQL anyway; they are charged this much. */
  maxCost: number;
}

interface GraphQLParams {
  query?: unknown;
  variables?: unknown;
  operationName?: unknown;
}

function variablesOf(raw: unknown): Record<string, unknown> | undefined {
  let value = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch {
      return undefined;
    }
  }
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/**
 * Charges a GraphQL operation by its cost (docs/GRAPHQL.md): `{ users(limit: 100) { posts { id } } }`
 * weighs as much as the REST calls that would fetch the same objects. The request itself already
 * counted one at onRequest; this adds the rest once the document is known.
 */
export function registerGraphQLWeight(app: FastifyInstance, limiter: RateLimiter, settings: GraphQLWeightSettings): void {
  const documents = new Map<string, DocumentNode | null>();

  function documentOf(query: string): DocumentNode | null {
    let document = documents.get(query);
    if (document !== undefined) return document;
    try {
      document = parse(query, { maxTokens: MAX_TOKENS });
    } catch {
      document = null; // GraphQL answers the syntax error; it counts as one request
    }
    if (documents.size >= DOCUMENT_CACHE_SIZE) documents.delete(documents.keys().next().value as string);
    documents.set(query, document);
    return document;
  }

  function weightOf(request: FastifyRequest): number {
    const schema = (request.server as FastifyInstance & { graphql?: { schema?: GraphQLSchema } }).graphql?.schema;
    const params = (request.method === 'POST' ? request.body : request.query) as GraphQLParams | undefined;
    if (!schema || typeof params?.query !== 'string') return 1;
    const document = documentOf(params.query);
    if (!document) return 1;
    const operationName = typeof params.operationName === 'string' ? params.operationName : undefined;
    const { cost } = operationCost(schema, document, operationName, variablesOf(params.variables));
    return Math.max(1, Math.ceil(Math.min(cost, settings.maxCost) / settings.costUnit));
  }

  app.addHook('preHandler', async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.routeOptions.url !== GRAPHQL_PATH) return;
    await limiter.charge(request, reply, weightOf(request) - 1);
  });
}
