import { GraphQLError } from 'graphql';
import { AppError, type ErrorDetail } from '../core/errors/app-error.ts';

/** The codes clients see in `errors[].extensions.code` (DECISIONS §6). */
export type GraphQLErrorCode =
  | 'BAD_USER_INPUT'
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'INVALID_STATE'
  | 'OUT_OF_STOCK'
  | 'IDEMPOTENCY_KEY_REUSED'
  | 'GRAPHQL_PARSE_FAILED'
  | 'GRAPHQL_VALIDATION_FAILED'
  | 'INTERNAL_SERVER_ERROR'
  | 'BAD_REQUEST'
  | 'METHOD_NOT_ALLOWED'
  | 'NOT_ACCEPTABLE'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'RATE_LIMITED';

export interface GraphQLErrorJson {
  message: string;
  locations?: readonly { line: number; column: number }[];
  path?: readonly (string | number)[];
  extensions: { code: GraphQLErrorCode | string; details?: ErrorDetail[]; [key: string]: unknown };
}

const CODE_BY_APP_CODE: Partial<Record<AppError['code'], GraphQLErrorCode>> = {
  VALIDATION_ERROR: 'BAD_USER_INPUT',
  UNAUTHORIZED: 'UNAUTHENTICATED',
  INVALID_CREDENTIALS: 'UNAUTHENTICATED',
  FORBIDDEN: 'FORBIDDEN',
  NOT_FOUND: 'NOT_FOUND',
  CONFLICT: 'CONFLICT',
  // A state conflict keeps its own code (DECISIONS §15): a client retries an OUT_OF_STOCK, not an INVALID_STATE.
  INVALID_STATE: 'INVALID_STATE',
  OUT_OF_STOCK: 'OUT_OF_STOCK',
  IDEMPOTENCY_KEY_REUSED: 'IDEMPOTENCY_KEY_REUSED',
  BAD_REQUEST: 'BAD_REQUEST',
  METHOD_NOT_ALLOWED: 'METHOD_NOT_ALLOWED',
  NOT_ACCEPTABLE: 'NOT_ACCEPTABLE',
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  UNSUPPORTED_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  RATE_LIMITED: 'RATE_LIMITED',
};

const INTERNAL_MESSAGE = 'Internal server error';

/** The extensions of an application error: its GraphQL code and, for validation, the field details. */
export function appErrorExtensions(error: AppError): GraphQLErrorJson['extensions'] {
  const code = error.status >= 500 ? 'INTERNAL_SERVER_ERROR' : (CODE_BY_APP_CODE[error.code] ?? error.code);
  return { code, ...(error.details && error.details.length > 0 ? { details: error.details } : {}) };
}

/** A request-level error (no GraphQL document involved): bad JSON, bad parameters, a bad token... */
export function requestError(error: AppError): GraphQLErrorJson {
  const extensions = appErrorExtensions(error);
  return { message: extensions.code === 'INTERNAL_SERVER_ERROR' ? INTERNAL_MESSAGE : error.message, extensions };
}

// Variable values that do not fit their declared types (graphql-js and graphql-jit word them alike).
const VARIABLE_COERCION =
  /^Variable "\$[_A-Za-z][_0-9A-Za-z]*" (got invalid value|of required type .* was not provided|of non-null type .* must not be null)/;

/** The code of an error raised before execution: parse, document validation, variables or a guard. */
function requestPhaseCode(error: GraphQLError): string {
  const own = error.extensions?.code;
  if (typeof own === 'string') return own;
  if (error.message.startsWith('Syntax Error')) return 'GRAPHQL_PARSE_FAILED';
  if (VARIABLE_COERCION.test(error.message)) return 'BAD_USER_INPUT';
  return 'GRAPHQL_VALIDATION_FAILED';
}

function located(error: GraphQLError): Pick<GraphQLErrorJson, 'locations' | 'path'> {
  return {
    ...(error.locations && error.locations.length > 0 ? { locations: error.locations } : {}),
    ...(error.path && error.path.length > 0 ? { path: error.path } : {}),
  };
}

export type ErrorLogger = (error: unknown) => void;

/**
 * The one GraphQL error mapper. Errors thrown by resolvers arrive wrapped in a GraphQLError whose
 * `originalError` is the service's AppError; anything that is not an AppError is masked.
 * `requestPhase` marks errors raised before execution (the document or the variables are at fault).
 */
export function formatGraphQLError(error: unknown, logUnexpected: ErrorLogger, requestPhase = false): GraphQLErrorJson {
  if (!(error instanceof GraphQLError)) {
    if (error instanceof AppError) return requestError(error);
    logUnexpected(error);
    return { message: INTERNAL_MESSAGE, extensions: { code: 'INTERNAL_SERVER_ERROR' } };
  }
  const original = error.originalError;
  if (original instanceof AppError) {
    return { message: original.message, ...located(error), extensions: appErrorExtensions(original) };
  }
  if (original && !(original instanceof GraphQLError)) {
    // A bug or an outage below a resolver: log it whole, tell the client nothing of it.
    logUnexpected(original);
    return { message: INTERNAL_MESSAGE, ...located(error), extensions: { code: 'INTERNAL_SERVER_ERROR' } };
  }
  if (requestPhase) {
    return {
      message: error.message,
      ...located(error),
      extensions: { ...error.extensions, code: requestPhaseCode(error) },
    };
  }
  // Raised by the executor itself (a non-null field that resolved to null): a server fault.
  logUnexpected(error);
  return { message: INTERNAL_MESSAGE, ...located(error), extensions: { code: 'INTERNAL_SERVER_ERROR' } };
}
