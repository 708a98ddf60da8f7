import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { getOperationAST, GraphQLError, type DocumentNode, type GraphQLSchema } from 'graphql';
import { AppError } from '../core/errors/app-error.ts';
import { toAppError } from '../core/http/error-envelope.ts';
import { toErrorDetails } from '../core/validation/ajv.ts';
import type { CompiledOperation, CompiledOperations } from './compiled-operations.ts';
import type { DocumentParser } from './document-parser.ts';
import { formatGraphQLError, requestError, type GraphQLErrorJson } from './errors.ts';
import { leaveGate, type GatedContext } from './execution-gate.ts';
import { registerGraphiQL } from './graphiql.ts';
import { GraphQLGetQuery, GraphQLPostBody, GraphQLResponse } from './http-schemas.ts';
import { GRAPHQL_RESPONSE_TYPE, JSON_TYPE, negotiateResponseType, type ResponseType } from './media-types.ts';

/** DECISIONS §8: request bodies are at most 1 MiB, GraphQL's included. */
export const GRAPHQL_BODY_LIMIT = 1024 * 1024;

/** The checks run after validation and before execution; Mercurius' hook and the compiled path share them. */
export type BeforeExecution = (
  schema: GraphQLSchema,
  document: DocumentNode,
  context: object,
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
function refusesOverGet(parser: DocumentParser, params: GraphQLParams): GraphQLError | 'mutation' | null {
  let document: DocumentNode;
  try {
    document = parser.parse(params.query);
  } catch {
    return null; // the executor reports the syntax error itself
  }
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
  if (request.method !== 'POST') {
    const refusal = refusesOverGet(endpoint.parser, params);
    if (refusal === 'mutation') {
      reply.header('allow', 'POST');
      const error = new AppError('METHOD_NOT_ALLOWED', 'Mutations must be sent with POST');
      return send(reply, type, 405, { errors: [requestError(error)] });
    }
    if (refusal) return sendDocumentFailure(endpoint, reply, type, [formatGraphQLError(refusal, logUnexpected, true)]);
  }
  const operationName = params.operationName ?? undefined;
  const context: GatedContext & { principal: typeof request.principal; operationName: string | undefined } = {
    principal: request.principal,
    operationName,
  };
  let result: { data?: unknown; errors?: readonly unknown[] };
  try {
    const compiled = endpoint.operations.get(params.query, operationName);
    if (compiled) {
      result = await runCompiled(endpoint, compiled, reply, context, params.variables ?? undefined);
    } else {
      // Our parser first (token and nesting caps): a text it refuses never reaches Mercurius. Called here,
      // not from Mercurius' preParsing hook, which would cost its hook runner and two promises a request.
      endpoint.parser.parse(params.query);
      result = await reply.graphql(params.query, context, params.variables ?? undefined, operationName);
      if (result.data !== undefined) endpoint.operations.executed(params.query, operationName);
    }
  } catch (error) {
    const rejected = rejectedBeforeExecution(error);
    if (!rejected) throw error;
    return sendDocumentFailure(
      endpoint,
      reply,
      type,
      rejected.map((e) => formatGraphQLError(e, logUnexpected, true)),
    );
  } finally {
    // An expensive operation held an execution slot from its last pre-execution hook (graphql.plugin.ts).
    leaveGate(context);
  }
  if (result.data === undefined || (result.data === null && !result.errors?.some((e) => (e as GraphQLError).path))) {
    // No execution happened (an unknown operation, variables that do not fit): a request error.
    return sendDocumentFailure(
      endpoint,
      reply,
      type,
      (result.errors ?? []).map((e) => formatGraphQLError(e, logUnexpected, true)),
    );
  }
  const errors = result.errors?.map((e) => formatGraphQLError(e, logUnexpected));
  // Not a spread of a conditional object: V8 clones it generically (bench/RESULTS.md, session 8, change 49).
  return send(reply, type, 200, errors && errors.length > 0 ? { data: result.data, errors } : { data: result.data });
}

/**
 * An operation compiled by an earlier run (compiled-operations.ts), run as Mercurius runs a compiled
 * query: variables checked first (their errors end the request as Mercurius' do), then the pre-execution
 * checks, then the query, with the context fields Mercurius sets (`reply`, `app`, `errors`).
 */
async function runCompiled(
  endpoint: GraphQLEndpoint,
  compiled: CompiledOperation,
  reply: FastifyReply,
  context: GatedContext & { operationName: string | undefined },
  variables: Record<string, unknown> | undefined,
): Promise<{ data?: unknown; errors?: readonly unknown[] }> {
  const given = variables ?? {};
  const variableErrors = compiled.variableErrors(given);
  if (variableErrors) return { errors: variableErrors };
  const executing = Object.assign(context, { reply, app: reply.server, errors: null });
  const waiting = endpoint.beforeExecution(reply.server.graphql.schema, compiled.document, executing, variables);
  if (waiting) await waiting;
  return compiled.execute(executing, given);
}

/**
 * The GraphQL errors of a document refused before execution: one thrown by our parser or a pre-execution
 * check, or Mercurius' rejection of a document that fails validation or whose variables do not fit, which
 * carries them in `errors` (the shape Mercurius' public `defaultErrorFormatter` reads; no library's
 * error code is matched). Anything else is no document's fault.
 */
function rejectedBeforeExecution(error: unknown): readonly GraphQLError[] | null {
  if (error instanceof GraphQLError) return [error];
  const errors = (error as { errors?: unknown } | null)?.errors;
  if (Array.isArray(errors) && errors.length > 0 && errors.every((e) => e instanceof GraphQLError))
    return errors as GraphQLError[];
  return null;
}

interface GraphQLEndpoint {
  /** The one parse of a text, with our caps (throws its syntax error). */
  parser: DocumentParser;
  /** Operations compiled after their earlier runs, run without Mercurius. */
  operations: CompiledOperations;
  /** The pre-execution checks (graphql.plugin.ts): a promise only when there is something to wait for. */
  beforeExecution: BeforeExecution;
  /** Introspection is off: error messages must not suggest the schema's names either. */
  hideSuggestions: boolean;
}

export interface GraphQLRoutesOptions extends GraphQLEndpoint {
  graphiql: boolean;
}

export async function graphqlRoutes(
  app: FastifyInstance,
  { graphiql, ...endpoint }: GraphQLRoutesOptions,
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
    handler: (request, reply) => runGraphQL(endpoint, request, reply, request.body as GraphQLParams),
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
      const query = request.query as GraphQLGetQuery;
      parseJsonObject(query.extensions, 'extensions');
      return runGraphQL(endpoint, request, reply, {
        query: query.query,
        variables: parseJsonObject(query.variables, 'variables'),
        operationName: query.operationName,
      });
    },
  });
  if (graphiql) registerGraphiQL(app);
}
