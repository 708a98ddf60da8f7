/** What `bearerTokenOf` answers for an Authorization header that is not `Bearer <token>`. */
export const MALFORMED = Symbol('malformed Authorization header');

/** RFC 6750's `b64token` (token68), one or more spaces after the scheme, which is case-insensitive. */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/**
 * The one reading of the Authorization header, shared by the rate limiter (which keys the budget by
 * the token's subject) and the access check (which refuses a malformed header with 401): the token,
 * undefined without a header, MALFORMED for anything else (`Basic ...`, `Bearer` and nothing, a
 * character outside token68).
 */
export function bearerTokenOf(header: string | undefined): string | undefined | typeof MALFORMED {
  if (header === undefined) return undefined;
  return BEARER.exec(header)?.[1] ?? MALFORMED;
}
