import type { OperationFacts } from './operation-facts.ts';

type Responses = Record<string, unknown>;

const ENVELOPE = { $ref: '#/components/schemas/ErrorEnvelope' };

function errorResponse(description: string, code: string, message: string) {
  return {
    description,
    content: { 'application/json': { schema: ENVELOPE, example: { error: { code, message } } } },
  };
}

/**
 * The error responses every operation can give, derived from what the route declares (access,
 * path parameters, body, query), all in the one error envelope. A status a module documents
 * itself is kept as it is.
 */
export function defaultErrorResponses(facts: OperationFacts): Responses {
  const responses: Responses = {
    400: errorResponse('Malformed request, or an unsupported API version (`UNSUPPORTED_VERSION`)', 'BAD_REQUEST', 'Request body is not valid JSON'),
  };
  if (facts.access !== 'public') {
    responses[401] = {
      ...errorResponse('Missing, invalid or expired bearer token', 'UNAUTHORIZED', 'Authentication required'),
      headers: { 'WWW-Authenticate': { description: 'The bearer challenge', schema: { type: 'string' } } },
    };
    responses[403] = errorResponse('Signed in, but not allowed to do this', 'FORBIDDEN', 'You are not allowed to do this');
  }
  if (facts.hasParams) responses[404] = errorResponse('No such resource (also for ids that are not positive integers)', 'NOT_FOUND', 'Resource not found');
  if (facts.hasBody) {
    responses[413] = errorResponse('Request body over 1 MiB', 'PAYLOAD_TOO_LARGE', 'Request body is too large');
    responses[415] = errorResponse('Body is not JSON', 'UNSUPPORTED_MEDIA_TYPE', 'Unsupported Content-Type; send application/json');
  }
  if (facts.hasBody || facts.hasQuery) {
    responses[422] = {
      description: 'Validation failed; `details` names each field',
      content: {
        'application/json': {
          schema: ENVELOPE,
          example: { error: { code: 'VALIDATION_ERROR', message: 'Request validation failed', details: [{ field: 'name', message: 'is required' }] } },
        },
      },
    };
  }
  responses[429] = {
    ...errorResponse('Rate limit exceeded', 'RATE_LIMITED', 'Too many requests'),
    headers: { 'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer' } } },
  };
  responses[500] = errorResponse('Unexpected error (no internals are revealed)', 'INTERNAL', 'Internal server error');
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
