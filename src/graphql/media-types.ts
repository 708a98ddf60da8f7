/** GraphQL-over-HTTP media types: the legacy one the seed uses, and the spec's own. */
export const JSON_TYPE = 'application/json';
export const GRAPHQL_RESPONSE_TYPE = 'application/graphql-response+json';

export type ResponseType = typeof JSON_TYPE | typeof GRAPHQL_RESPONSE_TYPE;

interface Range {
  type: string;
  q: number;
}

function rangesOf(accept: string): Range[] {
  return accept.split(',').map((part) => {
    const [type = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    return { type, q: q ? Number(q.slice(2)) : 1 };
  });
}

/** The quality and specificity (2 exact, 1 `application/*`, 0 `*\/*`) a media type gets from Accept. */
function match(ranges: Range[], type: string): { q: number; specificity: number } {
  let best = { q: 0, specificity: -1 };
  for (const range of ranges) {
    const specificity = range.type === type ? 2 : range.type === 'application/*' ? 1 : range.type === '*/*' ? 0 : -1;
    if (specificity > best.specificity) best = { q: Number.isFinite(range.q) ? range.q : 0, specificity };
  }
  return best;
}

/**
 * Picks the response media type from Accept: no header or `*\/*` means application/json (what the
 * seed's clients expect); the spec's type wins when asked for at least as strongly and as precisely.
 * Null when neither is acceptable.
 */
export function negotiateResponseType(accept: string | undefined): ResponseType | null {
  if (!accept || accept.trim() === '') return JSON_TYPE;
  const ranges = rangesOf(accept);
  const json = match(ranges, JSON_TYPE);
  const graphql = match(ranges, GRAPHQL_RESPONSE_TYPE);
  if (json.q <= 0 && graphql.q <= 0) return null;
  if (graphql.q > json.q || (graphql.q === json.q && graphql.specificity > json.specificity))
    return GRAPHQL_RESPONSE_TYPE;
  if (graphql.q === json.q && graphql.specificity === 2 && json.specificity === 2) return GRAPHQL_RESPONSE_TYPE;
  return JSON_TYPE;
}
