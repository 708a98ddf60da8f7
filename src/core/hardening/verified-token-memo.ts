import type { Principal } from '../access/principal.ts';
import type { TokenVerifier } from '../access/tokens.ts';

const MAX_ENTRIES = 10_000;
/**
 * The tokens' own text is bounded too: a header may carry a token of up to ~16 KB, so 10,000 distinct
 * long forgeries would otherwise hold 160 MB. 8 MB is ~25,000 tokens of the usual few hundred bytes.
 */
const MAX_TOKEN_CHARS = 8_000_000;
/** A verified token is remembered this long: far inside the 30 s clock tolerance on `exp`. */
const SUCCESS_TTL_MS = 5_000;
/** A refused one this long: enough that one request never pays twice for an unreachable JWKS. */
const FAILURE_TTL_MS = 1_000;

/**
 * Remembers recent verification outcomes by token. The rate limiter verifies the bearer token
 * before the access check does (to key the budget by the verified subject), so without this the
 * same signature would be checked twice per request, and a JWKS timeout would be waited out twice.
 * A token verified moments ago is also known synchronously (`verifiedNow`): the per-request hooks
 * then decide without a promise.
 */
export function memoizeTokenVerifier(verifier: TokenVerifier, now: () => number = Date.now): TokenVerifier {
  const entries = new Map<string, Entry>();
  let tokenChars = 0;
  const forget = (token: string) => {
    if (entries.delete(token)) tokenChars -= token.length;
  };

  return {
    verifiedNow(token: string): Principal | undefined {
      const hit = entries.get(token);
      return hit && hit.expires > now() ? hit.principal : undefined;
    },
    verify(token: string): Promise<Principal> {
      const time = now();
      const hit = entries.get(token);
      if (hit && hit.expires > time) return hit.result;
      if (hit) forget(token);
      // Oldest first (Map keeps insertion order): a flood of distinct tokens only evicts itself.
      while (entries.size > 0 && (entries.size >= MAX_ENTRIES || tokenChars + token.length > MAX_TOKEN_CHARS)) {
        forget(entries.keys().next().value as string);
      }
      const result = verifier.verify(token);
      const entry: Entry = { result, expires: Number.POSITIVE_INFINITY };
      entries.set(token, entry);
      tokenChars += token.length;
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

interface Entry {
  result: Promise<Principal>;
  /** Until then the outcome is reused; infinite while the verification is under way. */
  expires: number;
  /** Set once verified: what `verifiedNow` answers. */
  principal?: Principal;
}
