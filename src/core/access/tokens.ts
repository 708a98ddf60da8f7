import { SignJWT, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import { AppError } from '../errors/app-error.ts';
import type { Principal, Role } from './principal.ts';

export interface TokenSettings {
  secret: string;
  issuer: string;
  audience: string;
  ttlSeconds: number;
}

export interface IssuedToken {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
}

/** Verifies a bearer token into a principal. A JWKS-backed verifier will implement the same shape. */
export interface TokenVerifier {
  verify(token: string): Promise<Principal>;
  /**
   * The principal of a token this verifier accepted moments ago, known without waiting (a memo,
   * core/hardening/verified-token-memo.ts); undefined when it has to be verified (`verify`).
   */
  verifiedNow?(token: string): Principal | undefined;
}

/** How far the clocks of the issuer and this service may disagree (exp, nbf, iat). */
export const CLOCK_TOLERANCE_SECONDS = 30;

/** The claims every accepted token carries, whoever signed it. */
export const REQUIRED_CLAIMS = ['sub', 'iat', 'exp', 'iss', 'aud'];

/** The largest id the integer columns hold: a larger `sub` names nobody (and PostgreSQL refuses it). */
const MAX_USER_ID = 2147483647;

/**
 * The principal named by verified claims: `sub` a user id (1..2147483647), `role` user or admin,
 * `iat` not in the future beyond the clock tolerance (DECISIONS §5; jose checks that only together
 * with `maxTokenAge`, and a future `iat` means a wrong clock or a forged token).
 * `defaultRole` applies when the claim is absent (external identity providers may not send it).
 */
export function principalFromClaims(
  payload: JWTPayload,
  defaultRole?: Role,
  nowSeconds = Date.now() / 1000,
): Principal {
  const userId = Number(payload.sub);
  const role = (payload.role ?? defaultRole) as Role;
  if (!/^[1-9][0-9]{0,9}$/.test(payload.sub ?? '') || userId > MAX_USER_ID || (role !== 'user' && role !== 'admin')) {
    throw AppError.unauthorized('Invalid access token', 'the token claims are malformed');
  }
  if (typeof payload.iat !== 'number' || payload.iat > nowSeconds + CLOCK_TOLERANCE_SECONDS) {
    throw AppError.unauthorized('Invalid access token', 'the iat claim is in the future');
  }
  return { userId, role };
}

export function createTokenService(settings: TokenSettings) {
  const key = new TextEncoder().encode(settings.secret);

  async function issue(principal: Principal): Promise<IssuedToken> {
    const token = await new SignJWT({ role: principal.role })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(String(principal.userId))
      .setIssuer(settings.issuer)
      .setAudience(settings.audience)
      .setIssuedAt()
      .setExpirationTime(`${settings.ttlSeconds}s`)
      .sign(key);
    return { access_token: token, token_type: 'Bearer', expires_in: settings.ttlSeconds };
  }

  async function verify(token: string): Promise<Principal> {
    try {
      const { payload } = await jwtVerify(token, key, {
        algorithms: ['HS256'],
        issuer: settings.issuer,
        audience: settings.audience,
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        requiredClaims: REQUIRED_CLAIMS,
      });
      return principalFromClaims(payload);
    } catch (error) {
      if (error instanceof AppError) throw error;
      throw tokenRefusal(error, RENEW_OWN_TOKEN);
    }
  }

  return { issue, verify } satisfies TokenVerifier & { issue: unknown };
}

export type TokenService = ReturnType<typeof createTokenService>;

/** How a client of our own tokens gets a new one: signing in again (or, for a developer, the CLI). */
const RENEW_OWN_TOKEN =
  'sign in again with POST /api/v2/auth/token (or print one with `content-service token --user ID`)';

/**
 * The 401 of a token that failed verification. An expired one says so in its message, with when and how to
 * get a new one: a client that only shows `error.message` would otherwise see "Invalid access token" for a
 * token that was fine a minute ago. The challenge keeps `error="invalid_token"` (RFC 6750) either way.
 */
export function tokenRefusal(error: unknown, renew: string, describe = describeTokenError): AppError {
  if (error instanceof joseErrors.JWTExpired) {
    const exp = typeof error.payload.exp === 'number' ? ` at ${new Date(error.payload.exp * 1000).toISOString()}` : '';
    return AppError.unauthorized(`The access token expired${exp}: ${renew}`, 'the token has expired');
  }
  return AppError.unauthorized('Invalid access token', describe(error));
}

export function describeTokenError(error: unknown): string {
  if (error instanceof joseErrors.JWTExpired) return 'the token has expired';
  if (error instanceof joseErrors.JWTClaimValidationFailed) return `the ${error.claim} claim is invalid`;
  if (error instanceof joseErrors.JOSEAlgNotAllowed) return 'the token algorithm is not allowed';
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) return 'the token signature is invalid';
  return 'the token is malformed';
}
