import { decodeJwt } from 'jose';
import { GraphQLError, type ExecutionResult, type GraphQLSchema } from 'graphql';
import type { Config } from '../../config/config.ts';
import { bearerTokenOf, MALFORMED } from '../../core/access/bearer.ts';
import { AppError } from '../../core/errors/app-error.ts';
import { currentRightsCheck } from '../../core/resolving/context.ts';
import type { Services } from '../../services.ts';
import { assertCostWithin } from '../cost.ts';
import { formatGraphQLError, type ErrorLogger, type GraphQLErrorJson } from '../errors.ts';
import type { ExecutionGate } from '../execution-gate.ts';
import type { OperationCache, PreparedOperation } from '../operation-cache.ts';
import { assertStorableInput } from '../storable-input.ts';
import type { LiveViewer } from './live-operation.ts';

/**
 * The viewer of an Authorization value (`Bearer <token>`): the verified principal, with the database's
 * current rights (a deleted or suspended user is refused, DECISIONS §5), and the token's `exp`. Throws
 * the AppError (401) of a missing, malformed or invalid token.
 */
export async function viewerOf(services: Services, authorization: unknown): Promise<LiveViewer> {
  const token = bearerTokenOf(typeof authorization === 'string' ? authorization : undefined);
  if (token === undefined || token === MALFORMED)
    throw AppError.unauthorized('A Bearer token is needed for subscriptions', 'no or a malformed token');
  const principal = await services.tokens.verify(token);
  // The token verified (its signature and claims, exp among them): its `exp` bounds the subscription.
  const exp = decodeJwt(token).exp;
  if (typeof exp !== 'number') throw AppError.unauthorized('Invalid access token', 'no exp claim');
  const current = await services.rights.current(principal);
  return { principal: current, expiresAt: exp * 1000 };
}

/** What graphql-js appends to a message when a name is close to one the schema has. */
const SUGGESTION = / Did you mean .*\?$/s;

export interface LiveChecks {
  /** The prepared operation and its variables, or the errors that refuse it (parse, validation, variables, guards). */
  check(
    query: string,
    operationName: string | undefined,
    variables: Record<string, unknown> | undefined,
  ): { prepared: PreparedOperation; variables: Record<string, unknown> } | { errors: GraphQLError[] };
  /** Runs a query or mutation sent over a socket with the same checks as over HTTP (rights, execution slot). */
  runOnce(
    prepared: PreparedOperation,
    variables: Record<string, unknown>,
    operationName: string | undefined,
    viewer: LiveViewer,
    logUnexpected: ErrorLogger,
  ): Promise<ExecutionResult>;
}

const toGraphQLError = (json: GraphQLErrorJson) =>
  new GraphQLError(json.message, { extensions: json.extensions, path: json.path });

/** The refusal of a document, as GraphQL errors the transports send (suggestions cut when introspection is off). */
function refusal(errors: readonly unknown[], hideSuggestions: boolean, log: ErrorLogger): GraphQLError[] {
  return errors.map((error) => {
    const json = formatGraphQLError(error, log, true);
    return toGraphQLError(hideSuggestions ? { ...json, message: json.message.replace(SUGGESTION, '') } : json);
  });
}

const ROOT = Object.freeze({});

export function createLiveChecks(options: {
  config: Config;
  services: Services;
  schema: GraphQLSchema;
  operations: OperationCache;
  gate: ExecutionGate;
  hideSuggestions: boolean;
  log: ErrorLogger;
}): LiveChecks {
  const { config, services, schema, operations, gate, hideSuggestions, log } = options;
  return {
    check(query, operationName, given) {
      const prepared = operations.prepare(query, operationName);
      if ('errors' in prepared) return { errors: refusal(prepared.errors, hideSuggestions, log) };
      const variables = given ?? {};
      const variableErrors = prepared.variableErrors(variables);
      if (variableErrors) return { errors: refusal(variableErrors, hideSuggestions, log) };
      try {
        assertCostWithin(
          config.GRAPHQL_MAX_COST,
          schema,
          prepared.document,
          operationName,
          variables,
          config.RATE_LIMIT_GRAPHQL_COST_UNIT,
        );
        assertStorableInput(prepared.document, variables);
      } catch (error) {
        if (error instanceof GraphQLError) return { errors: refusal([error], hideSuggestions, log) };
        throw error;
      }
      return { prepared, variables };
    },
    async runOnce(prepared, variables, operationName, viewer, logUnexpected) {
      const context = { principal: viewer.principal as typeof viewer.principal | null, operationName };
      const cost = assertCostWithin(
        config.GRAPHQL_MAX_COST,
        schema,
        prepared.document,
        operationName,
        variables,
        config.RATE_LIMIT_GRAPHQL_COST_UNIT,
      );
      try {
        await currentRightsCheck(services.rights, prepared.document, context);
      } catch (error) {
        return { errors: [toGraphQLError(formatGraphQLError(error, logUnexpected))] };
      }
      const heavy = cost >= config.GRAPHQL_HEAVY_COST;
      if (heavy) await gate.enter();
      try {
        const result = await prepared.execute(ROOT, context, variables);
        if (!result.errors || result.errors.length === 0) return result;
        return {
          data: result.data,
          errors: result.errors.map((e) => toGraphQLError(formatGraphQLError(e, logUnexpected))),
        };
      } finally {
        if (heavy) gate.leave();
      }
    },
  };
}
