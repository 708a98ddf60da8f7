import { createPublicKey, type KeyObject } from 'node:crypto';
import { createRemoteJWKSet, decodeProtectedHeader, errors as joseErrors, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { AppError } from '../errors/app-error.ts';
import type { Principal } from './principal.ts';
import {
  CLOCK_TOLERANCE_SECONDS,
  describeTokenError,
  principalFromClaims,
  REQUIRED_CLAIMS,
  tokenRefusal,
  type TokenVerifier,
} from './tokens.ts';

/** Algorithms an external identity provider may sign with. HS256 never: its key is our secret. */
export const EXTERNAL_ALGORITHMS = ['RS256', 'ES256'] as const;

export interface ExternalTokenSettings {
  /** The provider's JWKS (`.../.well-known/jwks.json`); keys are cached and refetched on an unknown `kid`. */
  jwksUrl?: string | undefined;
  /** Or one PEM public key (RSA → RS256, EC P-256 → ES256). */
  publicKeyPem?: string | undefined;
  issuer: string;
  audience: string;
  /** A JWKS fetch that takes longer fails (the request answers 401, it does not hang). */
  timeoutMs: number;
  /** Least time between two refetches caused by unknown key ids (an attacker cannot make us hammer the IdP). */
  cooldownMs: number;
  /** Keys are refetched at least this often, so a removed key stops working. */
  cacheMaxAgeMs: number;
}

function publicKeyOf(pem: string): { key: KeyObject; algorithm: (typeof EXTERNAL_ALGORITHMS)[number] } {
  // Environment variables often carry a PEM on one line with literal "\n".
  const key = createPublicKey(pem.replace(/\\n/g, '\n'));
  if (key.asymmetricKeyType === 'rsa') return { key, algorithm: 'RS256' };
  if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1')
    return { key, algorithm: 'ES256' };
  throw new Error('JWT_PUBLIC_KEY must be an RSA or EC P-256 public key');
}

function describeExternalError(error: unknown): string {
  if (error instanceof joseErrors.JWKSNoMatchingKey) return 'no key of the identity provider matches the token';
  if (error instanceof joseErrors.JWKSTimeout) return 'the identity provider keys could not be fetched in time';
  if (error instanceof joseErrors.JOSEError && error.code === 'ERR_JOSE_GENERIC')
    return 'the identity provider keys could not be fetched';
  if (error instanceof TypeError || (error as { name?: string }).name === 'AbortError')
    return 'the identity provider keys could not be fetched';
  return describeTokenError(error);
}

/**
 * Verifies tokens of an external identity provider: RS256/ES256 only, `iss`, `aud`, `exp`, `nbf`
 * and `iat` checked with the same clock tolerance as our own tokens. The role comes from a `role`
 * claim (default `user`); `sub` must be the local user id (docs/SECURITY.md, "External identity providers").
 */
export function createExternalTokenVerifier(settings: ExternalTokenSettings): TokenVerifier {
  let keys: JWTVerifyGetKey | KeyObject;
  let algorithms: string[];
  if (settings.jwksUrl) {
    keys = createRemoteJWKSet(new URL(settings.jwksUrl), {
      timeoutDuration: settings.timeoutMs,
      cooldownDuration: settings.cooldownMs,
      cacheMaxAge: settings.cacheMaxAgeMs,
    });
    algorithms = [...EXTERNAL_ALGORITHMS];
  } else if (settings.publicKeyPem) {
    const { key, algorithm } = publicKeyOf(settings.publicKeyPem);
    keys = key;
    algorithms = [algorithm];
  } else {
    throw new Error('An external token verifier needs JWT_JWKS_URL or JWT_PUBLIC_KEY');
  }

  return {
    async verify(token: string): Promise<Principal> {
      try {
        const options = {
          algorithms,
          issuer: settings.issuer,
          audience: settings.audience,
          clockTolerance: CLOCK_TOLERANCE_SECONDS,
          requiredClaims: REQUIRED_CLAIMS,
        };
        const { payload } =
          typeof keys === 'function' ? await jwtVerify(token, keys, options) : await jwtVerify(token, keys, options);
        return principalFromClaims(payload, 'user');
      } catch (error) {
        if (error instanceof AppError) throw error;
        throw tokenRefusal(error, 'get a new one from the identity provider', describeExternalError);
      }
    },
  };
}

/**
 * Chooses the verifier by the token's `alg` header: HS256 goes to our own secret, RS256/ES256 to
 * the external provider. Each verifier also restricts its own algorithms, so a token cannot pass
 * as HS256 signed with a public key, and `none` or any unlisted algorithm is refused.
 */
export function createTokenVerifierByAlgorithm(local: TokenVerifier, external: TokenVerifier | null): TokenVerifier {
  return {
    async verify(token: string): Promise<Principal> {
      let alg: unknown;
      try {
        alg = decodeProtectedHeader(token).alg;
      } catch {
        throw AppError.unauthorized('Invalid access token', 'the token is malformed');
      }
      if (alg === 'HS256') return local.verify(token);
      if (external && (EXTERNAL_ALGORITHMS as readonly unknown[]).includes(alg)) return external.verify(token);
      throw AppError.unauthorized('Invalid access token', 'the token algorithm is not allowed');
    },
  };
}
