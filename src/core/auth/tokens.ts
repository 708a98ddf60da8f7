import { SignJWT, errors as joseErrors, jwtVerify } from 'jose';
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
}

const CLOCK_TOLERANCE_SECONDS = 30;

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
        requiredClaims: ['sub', 'iat', 'exp', 'iss', 'aud'],
      });
      const userId = Number(payload.sub);
      const role = payload.role as Role;
      if (!Number.isSafeInteger(userId) || userId < 1 || (role !== 'user' && role !== 'admin')) {
        throw AppError.unauthorized('Invalid access token', 'the token claims are malformed');
      }
      return { userId, role };
    } catch (error) {
      if (error instanceof AppError) throw error;
      throw AppError.unauthorized('Invalid access token', describe(error));
    }
  }

  return { issue, verify } satisfies TokenVerifier & { issue: unknown };
}

export type TokenService = ReturnType<typeof createTokenService>;

function describe(error: unknown): string {
  if (error instanceof joseErrors.JWTExpired) return 'the token has expired';
  if (error instanceof joseErrors.JWTClaimValidationFailed) return `the ${error.claim} claim is invalid`;
  if (error instanceof joseErrors.JOSEAlgNotAllowed) return 'the token algorithm is not allowed';
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) return 'the token signature is invalid';
  return 'the token is malformed';
}
