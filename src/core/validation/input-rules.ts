/**
 * Rules every piece of client input obeys, whatever the transport (REST path, query and body; GraphQL
 * arguments and variables). Declared once here; `request-validator.ts` applies them to REST and
 * `src/graphql/input-rules.ts` to GraphQL.
 */

/** The largest value of the database's integer columns (ids, stock, quantities): PostgreSQL's `integer`. */
export const MAX_DB_INTEGER = 2147483647;
export const MIN_DB_INTEGER = -2147483648;

/** A positive integer in canonical decimal form: no sign, leading zero, exponent, hex, point or space. */
const CANONICAL_ID = /^[1-9][0-9]{0,9}$/;

/**
 * The id a path segment or GraphQL `ID` names, or undefined when it names nothing (not canonical
 * decimal, or beyond the integer columns). Parsed once here so `02`, `0x2`, ` 2` or `2e0` never
 * reach a row that `2` names.
 */
export function parseId(text: unknown): number | undefined {
  if (typeof text !== 'string' || !CANONICAL_ID.test(text)) return undefined;
  const id = Number(text);
  return id <= MAX_DB_INTEGER ? id : undefined;
}

export const UNSTORABLE_TEXT_MESSAGE = 'must not contain NUL characters or unpaired UTF-16 surrogates';

/**
 * Text the databases cannot store faithfully: PostgreSQL refuses NUL in `text` (a 500 before this
 * rule), and both databases replace an unpaired surrogate with U+FFFD, silently changing the value.
 */
export function isStorableText(text: string): boolean {
  return !text.includes('\u0000') && text.isWellFormed();
}

/**
 * The paths (`a.b.0.c`) of every string (or object key) in a JSON-like value that is not storable,
 * at most `max` of them so a hostile body costs little to report.
 */
export function unstorableTextPaths(value: unknown, prefix: string[] = [], max = 10): string[] {
  const found: string[] = [];
  const walk = (node: unknown, path: string[]): void => {
    if (found.length >= max) return;
    if (typeof node === 'string') {
      if (!isStorableText(node)) found.push(path.join('.'));
    } else if (Array.isArray(node)) {
      node.forEach((item, index) => walk(item, [...path, String(index)]));
    } else if (node !== null && typeof node === 'object') {
      for (const [key, item] of Object.entries(node)) {
        if (!isStorableText(key)) found.push([...path, '(a key)'].join('.'));
        walk(item, [...path, key]);
      }
    }
  };
  walk(value, prefix);
  return found;
}
