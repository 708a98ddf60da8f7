import type { OperationFacts } from './operation-facts.ts';

type Responses = Record<string, unknown>;

const ENVELOPE = { $ref: '#/components/schemas/ErrorEnvelope' };

function errorResponse(description: string, code: string, message: string, headers?: Record<string, unknown>) {
  return {
    description,
    ...(headers ? { headers } : {}),
    content: { 'application/json': { schema: ENVELOPE, example: { error: { code, message } } } },
  };
}

const RETRY_AFTER = {
  'Retry-After': {
    description: 'Seconds to wait before retrying',
    required: true,
    schema: { type: 'integer', minimum: 0 },
  },
};

/**
 * The error responses every operation can give, derived from what the route declares (access,
 * path parameters, body, query, its `config.openapi`), all in the one error envelope. A status a
 * module documents itself is kept as it is.
 */
export function defaultErrorResponses(facts: OperationFacts): Responses {
  const isPublic = facts.access === 'public';
  const hasBody = facts.hasBody || facts.docs.requestMedia !== undefined;
  const responses: Responses = {
    400: errorResponse(
      'Malformed request, or an unsupported API version (`UNSUPPORTED_VERSION`)',
      'BAD_REQUEST',
      'Request body is not valid JSON',
    ),
    401: errorResponse(
      isPublic
        ? 'A bearer token was sent and is invalid or expired (this operation needs none), or the credentials are wrong'
        : 'Missing, invalid or expired bearer token',
      isPublic ? 'UNAUTHORIZED' : 'UNAUTHORIZED',
      isPublic ? 'Invalid token' : 'Authentication required',
      { 'WWW-Authenticate': { description: 'The bearer challenge', required: true, schema: { type: 'string' } } },
    ),
    403: errorResponse(
      isPublic
        ? 'Refused for this caller (e.g. a field only an admin may set, or a suspended account)'
        : 'Signed in, but not allowed to do this',
      'FORBIDDEN',
      'You are not allowed to do this',
    ),
  };
  if (facts.hasParams)
    responses[404] = errorResponse(
      'No such resource (also for ids that are not positive integers)',
      'NOT_FOUND',
      'Resource not found',
    );
  responses[406] = errorResponse(
    '`Accept` asked for an API version that does not exist (`application/vnd.content.vN+json`)',
    'NOT_ACCEPTABLE',
    'Media type application/vnd.content.v9+json is not available; use application/vnd.content.v1+json or v2',
  );
  for (const [status, error] of Object.entries(facts.docs.errors ?? {}))
    responses[status] = errorResponse(error.description, error.code, error.message);
  if (facts.docs.ifMatch) {
    responses[412] = errorResponse(
      '`If-Match` does not match the current representation',
      'PRECONDITION_FAILED',
      'The resource has changed; fetch it again',
    );
  }
  if (hasBody) {
    responses[413] = errorResponse('Request body over 1 MiB', 'PAYLOAD_TOO_LARGE', 'Request body is too large');
    responses[415] = errorResponse(
      facts.docs.requestMedia ? `Body is not one of ${facts.docs.requestMedia.join(', ')}` : 'Body is not JSON',
      'UNSUPPORTED_MEDIA_TYPE',
      facts.docs.requestMedia
        ? `Send one of ${facts.docs.requestMedia.join(', ')}`
        : 'Unsupported Content-Type; send application/json',
    );
  }
  responses[414] = errorResponse('The URL is too long', 'URI_TOO_LONG', 'Request URL is too long');
  // Every operation: in v2 a query parameter it does not declare is refused, naming it (DECISIONS §13).
  responses[422] = {
    description:
      'Validation failed; `details` names each field (in v2 also each query parameter the operation does not declare)',
    content: {
      'application/json': {
        schema: ENVELOPE,
        example: {
          error: {
            code: 'VALIDATION_ERROR',
            message: 'Request validation failed',
            details: [{ field: 'name', message: 'is required' }],
          },
        },
      },
    },
  };
  responses[429] = errorResponse('Rate limit exceeded', 'RATE_LIMITED', 'Too many requests', RETRY_AFTER);
  responses[500] = errorResponse('Unexpected error (no internals are revealed)', 'INTERNAL', 'Internal server error');
  responses[503] = errorResponse(
    'Overloaded or the database is unreachable; retry later',
    'SERVICE_UNAVAILABLE',
    'Service is overloaded, retry later',
    RETRY_AFTER,
  );
  return responses;
}

/** Adds the default error responses an operation does not document itself. */
export function withDefaultErrors(responses: Responses | undefined, facts: OperationFacts): Responses {
  const merged: Responses = { ...responses };
  for (const [status, response] of Object.entries(defaultErrorResponses(facts))) {
    if (!(status in merged) && !(`${status[0]}XX` in merged)) merged[status] = response;
  }
  return merged;
}
