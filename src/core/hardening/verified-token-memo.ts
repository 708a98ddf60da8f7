import type { Principal } from '../access/principal.ts';
import type { TokenVerifier } from '../access/tokens.ts';

const MAX_ENTRIES = 10_000;
/** A verified token is remembered this long: far inside the 30 s clock tolerance on `exp`. */
const SUCCESS_TTL_MS = 5_000;
/** A refused one this long: enough that one request never pays twice for an unreachable JWKS. */
const FAILURE_TTL_MS = 1_000;

/**
 * Remembers recent verification outcomes by token. The rate limiter verifies the bearer token
 * before the access check does (to key the budget by the verified subject), so without this the
 * same signature would be checked twice per request, and a JWKS timeout would be waited out twice.
 * A token verified moments ago is also known synchronously (`verifiedNow`): the per-request hooks
 * then decide without a promise (bench/RESULTS.md, session 5).
 */
export function memoizeTokenVerifier(verifier: TokenVerifier, now: () => number = Date.now): TokenVerifier {
  const entries = new Map<string, { result: Promise<Principal>; expires: number; principal?: Principal }>();

  return {
    verifiedNow(token: string): Principal | undefined {
      const hit = entries.get(token);
      return hit && hit.expires > now() ? hit.principal : undefined;
    },
    verify(token: string): Promise<Principal> {
      const time = now();
      const hit = entries.get(token);
      if (hit && hit.expires > time) return hit.result;
      if (hit) entries.delete(token);
      if (entries.size >= MAX_ENTRIES) {
        // Oldest first (Map keeps insertion order): a flood of distinct tokens only evicts itself.
        const oldest = entries.keys().next().value;
        if (oldest !== undefined) entries.delete(oldest);
      }
      const result = verifier.verify(token);
      const entry: { result: Promise<Principal>; expires: number; principal?: Principal } = { result, expires: Number.POSITIVE_INFINITY };
      entries.set(token, entry);
      result.then(
        (principal) => {
          entry.principal = principal;
          entry.expires = now() + SUCCESS_TTL_MS;
        },
        () => (entry.expires = now() + FAILURE_TTL_MS),
      );
      return result;
    },
  };
}
