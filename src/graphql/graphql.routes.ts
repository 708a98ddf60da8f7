import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { getOperationAST, GraphQLError, type DocumentNode, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { AppError } from '../core/errors/app-error.ts';
import { toAppError } from '../core/http/error-envelope.ts';
import { toErrorDetails } from '../core/validation/ajv.ts';
import type { Principal } from '../core/access/principal.ts';
import type { OperationCache } from './operation-cache.ts';
import type { LiveTransports } from './subscriptions/subscriptions.plugin.ts';
import { formatGraphQLError, requestError, type GraphQLErrorJson } from './errors.ts';
import { leaveGate, type GatedContext } from './execution-gate.ts';
import { registerGraphiQL, type GraphiQLOptions } from './graphiql.ts';
import { GraphQLGetQuery, GraphQLPostBody, GraphQLResponse } from './http-schemas.ts';
import { GRAPHQL_RESPONSE_TYPE, JSON_TYPE, negotiateResponseType, type ResponseType } from './media-types.ts';

/** DECISIONS §8: request bodies are at most 1 MiB, GraphQL's included. */
export const GRAPHQL_BODY_LIMIT = 1024 * 1024;

/** What an operation over HTTP runs with: its resolvers' context, plus what the checks need and leave. */
export interface HttpOperationContext extends GatedContext {
  principal: Principal | null;
  operationName: string | undefined;
  reply: FastifyReply;
}

/** The checks run after validation and the variables' check, before execution (graphql.plugin.ts). */
export type BeforeExecution = (
  document: DocumentNode,
  context: HttpOperationContext,
  variables: Record<string, unknown> | undefined,
) => Promise<void> | undefined;

interface GraphQLParams {
  query: string;
  variables?: Record<string, unknown> | null | undefined;
  operationName?: string | null | undefined;
}

interface GraphQLBody {
  data?: unknown;
  errors?: GraphQLErrorJson[];
}

/** The Content-Type of each answer media type, built once. */
const CONTENT_TYPE: Record<ResponseType, string> = {
  [JSON_TYPE]: `${JSON_TYPE}; charset=utf-8`,
  [GRAPHQL_RESPONSE_TYPE]: `${GRAPHQL_RESPONSE_TYPE}; charset=utf-8`,
};

function send(reply: FastifyReply, type: ResponseType, status: number, body: GraphQLBody): FastifyReply {
  settleOutcome(reply.request, body);
  // Answers depend on the caller and on the negotiated media type (GET answers carry an ETag).
  reply.header('vary', 'Authorization, Accept');
  return reply.code(status).type(CONTENT_TYPE[type]).send(JSON.stringify(body));
}

/** The outcome the access log and `/metrics` report: an operation that never passed validation is `rejected`. */
function settleOutcome(request: FastifyRequest, body: GraphQLBody): void {
  const operation = request.graphqlOperation;
  if (!operation) request.graphqlOperation = { name: '(none)', type: '(none)', outcome: 'rejected' };
  else if (body.errors && body.errors.length > 0) operation.outcome = 'error';
}

/**
 * Errors of the request itself, before any GraphQL (bad JSON, bad parameters, a bad token, a body
 * over 1 MiB, a wrong Content-Type): GraphQL-shaped, with the HTTP status of the failure.
 */
function sendRequestFailure(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const validation = (error as FastifyError).validation;
  const appError = validation
    ? new AppError('BAD_REQUEST', 'Invalid GraphQL request parameters', {
        details: toErrorDetails(validation as never),
      })
    : toAppError(error);
  if (appError.status >= 500) request.log.error({ err: error }, 'GraphQL request failed');
  if (appError.headers) reply.headers(appError.headers);
  return send(reply, negotiateResponseType(request.headers.accept) ?? JSON_TYPE, appError.status, {
    errors: [requestError(appError)],
  });
}

/** What graphql-js appends to a message when a name is close to one the schema has. */
const SUGGESTION = / Did you mean .*\?$/s;

/**
 * Errors raised before execution (parse, validation, variables, guards): no `data` entry at all.
 * With introspection off, "Did you mean ...?" would reveal the schema's names one guess at a time,
 * so the suggestions are cut.
 */
function sendDocumentFailure(
  endpoint: GraphQLEndpoint,
  reply: FastifyReply,
  type: ResponseType,
  errors: GraphQLErrorJson[],
): FastifyReply {
  const shown = endpoint.hideSuggestions
    ? errors.map((e) => ({ ...e, message: e.message.replace(SUGGESTION, '') }))
    : errors;
  // The seed: 200 for application/json; the GraphQL-over-HTTP spec: 400 for its own media type.
  return send(reply, type, type === JSON_TYPE ? 200 : 400, { errors: shown });
}

function parseJsonObject(text: string | undefined, name: string): Record<string, unknown> | undefined {
  if (text === undefined || text === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new AppError('BAD_REQUEST', `The ${name} parameter is not valid JSON`);
  }
  if (value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value))
    throw new AppError('BAD_REQUEST', `The ${name} parameter must be a JSON object`);
  return value as Record<string, unknown>;
}

/** Only POST may run mutations: GET (and HEAD) are for queries, which are safe to repeat and cache. */
function refusesOverGet(operations: OperationCache, params: GraphQLParams): GraphQLError | 'mutation' | null {
  const document = operations.documentOf(params.query);
  if (!document) return null; // the pipeline reports the syntax error itself
  const operation = getOperationAST(document, params.operationName ?? undefined);
  if (!operation) {
    return new GraphQLError(
      params.operationName
        ? `Unknown operation named "${params.operationName}".`
        : 'Must provide operation name if query contains multiple operations.',
    );
  }
  return operation.operation === 'query' ? null : 'mutation';
}

/** The root value of queries and mutations: the root fields resolve through their field resolvers. */
const ROOT = Object.freeze({});

async function runGraphQL(
  endpoint: GraphQLEndpoint,
  request: FastifyRequest,
  reply: FastifyReply,
  params: GraphQLParams,
): Promise<FastifyReply> {
  const type = negotiateResponseType(request.headers.accept);
  if (!type) {
    const error = new AppError('NOT_ACCEPTABLE', `Accept must allow ${JSON_TYPE} or application/graphql-response+json`);
    return send(reply, JSON_TYPE, 406, { errors: [requestError(error)] });
  }
  const logUnexpected = (err: unknown) => request.log.error({ err }, 'GraphQL resolver failed');
  const refuse = (errors: readonly unknown[]) =>
    sendDocumentFailure(
      endpoint,
      reply,
      type,
      errors.map((e) => formatGraphQLError(e, logUnexpected, true)),
    );
  if (request.method !== 'POST') {
    const refusal = refusesOverGet(endpoint.operations, params);
    if (refusal === 'mutation') {
      reply.header('allow', 'POST');
      const error = new AppError('METHOD_NOT_ALLOWED', 'Mutations must be sent with POST');
      return send(reply, type, 405, { errors: [requestError(error)] });
    }
    if (refusal) return refuse([refusal]);
  }
  const operationName = params.operationName ?? undefined;
  const prepared = endpoint.operations.prepare(params.query, operationName);
  if ('errors' in prepared) return refuse(prepared.errors);
  if (prepared.operation.operation === 'subscription') return refuse([SUBSCRIPTION_OVER_HTTP]);
  const variables = params.variables ?? {};
  const variableErrors = prepared.variableErrors(variables);
  if (variableErrors) return refuse(variableErrors);
  const context: HttpOperationContext = { principal: request.principal, operationName, reply };
  let result: ExecutionResult;
  try {
    const waiting = endpoint.beforeExecution(prepared.document, context, params.variables ?? undefined);
    if (waiting) await waiting;
    result = await prepared.execute(ROOT, context, variables);
  } catch (error) {
    // A guard's refusal (cost, input rules) is the document's fault; anything else (401, 429) is the request's.
    if (!(error instanceof GraphQLError)) throw error;
    return refuse([error]);
  } finally {
    // An expensive operation held an execution slot from the pre-execution checks (graphql.plugin.ts).
    leaveGate(context);
  }
  if (result.data === undefined || (result.data === null && !result.errors?.some((e) => e.path))) {
    // No execution happened: a request error.
    return refuse(result.errors ?? []);
  }
  const errors = result.errors?.map((e) => formatGraphQLError(e, logUnexpected));
  // Not a spread of a conditional object: V8 clones it generically, a visible cost per answer.
  return send(reply, type, 200, errors && errors.length > 0 ? { data: result.data, errors } : { data: result.data });
}

const SUBSCRIPTION_OVER_HTTP = new GraphQLError(
  'Subscriptions are served over WebSocket (graphql-transport-ws) or Server-Sent Events (Accept: text/event-stream) on this path.',
);

interface GraphQLEndpoint {
  schema: GraphQLSchema;
  /** The one document cache: parse, validation and compilation of each text (operation-cache.ts). */
  operations: OperationCache;
  /** The pre-execution checks (graphql.plugin.ts): a promise only when there is something to wait for. */
  beforeExecution: BeforeExecution;
  /** Introspection is off: error messages must not suggest the schema's names either. */
  hideSuggestions: boolean;
}

export interface GraphQLRoutesOptions extends GraphQLEndpoint {
  /** GraphiQL's page and its options, or false where it is not served. */
  graphiql: GraphiQLOptions | false;
  /** Subscriptions over Server-Sent Events: a GET or POST that accepts `text/event-stream` (subscriptions/). */
  live: LiveTransports;
}

export async function graphqlRoutes(
  app: FastifyInstance,
  { graphiql, live, ...endpoint }: GraphQLRoutesOptions,
): Promise<void> {
  const common = {
    url: '/graphql',
    config: { access: 'public' as const },
    bodyLimit: GRAPHQL_BODY_LIMIT,
    errorHandler: sendRequestFailure,
  };
  app.route({
    ...common,
    method: 'POST',
    schema: {
      tags: ['GraphQL'],
      summary: 'Run a GraphQL query or mutation',
      body: GraphQLPostBody,
      response: { 200: GraphQLResponse },
    },
    handler: (request, reply) =>
      live.wantsEventStream(request)
        ? live.serveEventStream(request, reply, request.body)
        : runGraphQL(endpoint, request, reply, request.body as GraphQLParams),
  });
  app.route({
    ...common,
    method: 'GET',
    schema: {
      tags: ['GraphQL'],
      summary: 'Run a GraphQL query (never a mutation)',
      querystring: GraphQLGetQuery,
      response: { 200: GraphQLResponse },
    },
    handler: (request, reply) => {
      if (live.wantsEventStream(request)) return live.serveEventStream(request, reply, null);
      const query = request.query as GraphQLGetQuery;
      parseJsonObject(query.extensions, 'extensions');
      return runGraphQL(endpoint, request, reply, {
        query: query.query,
        variables: parseJsonObject(query.variables, 'variables'),
        operationName: query.operationName,
      });
    },
  });
  if (graphiql) registerGraphiQL(app, graphiql);
}
