/**
 * Rules every piece of client input obeys, whatever the transport (REST path, query and body; GraphQL
 * arguments and variables). Declared once here; `request-validator.ts` applies them to REST and
 * `src/graphql/storable-input.ts` to GraphQL.
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
 * How deep client-supplied JSON may nest (objects and arrays) wherever a rule walks it. Far above any
 * input type of the API (the deepest, an order's items, is three levels), far below what a recursive
 * walk could survive: walks here are iterative, and a value nested deeper is refused, not walked.
 */
export const MAX_INPUT_DEPTH = 64;

export const TOO_DEEP_MESSAGE = `nests deeper than ${MAX_INPUT_DEPTH} levels`;

export interface InputProblem {
  /** Where, as a dotted path (`a.b.0.c`; `(a key)` for an object key). */
  path: string;
  message: string;
}

/**
 * The problems of a JSON-like value every transport refuses: strings (or object keys) that are not
 * storable, and nesting past MAX_INPUT_DEPTH (reported once, where it starts, and not walked further).
 * At most `max` of them, so a hostile body costs little to report. Iterative: a value nested 10,000
 * levels deep costs a loop, not a stack overflow.
 */
export function inputProblems(value: unknown, prefix: readonly string[] = [], max = 10): InputProblem[] {
  const found: InputProblem[] = [];
  const stack: { node: unknown; path: readonly string[]; depth: number; keyed: boolean }[] = [
    { node: value, path: prefix, depth: 0, keyed: false },
  ];
  while (stack.length > 0 && found.length < max) {
    const { node, path, depth, keyed } = stack.pop()!;
    if (keyed && !isStorableText(path.at(-1)!))
      found.push({ path: [...path.slice(0, -1), '(a key)'].join('.'), message: UNSTORABLE_TEXT_MESSAGE });
    if (typeof node === 'string') {
      if (!isStorableText(node)) found.push({ path: path.join('.'), message: UNSTORABLE_TEXT_MESSAGE });
      continue;
    }
    if (node === null || typeof node !== 'object') continue;
    if (depth >= MAX_INPUT_DEPTH) {
      found.push({ path: path.join('.'), message: TOO_DEEP_MESSAGE });
      continue;
    }
    const isObject = !Array.isArray(node);
    const entries = isObject
      ? Object.entries(node)
      : (node as unknown[]).map((item, index) => [String(index), item] as const);
    // Pushed in reverse so problems are reported in document order.
    for (let i = entries.length - 1; i >= 0; i -= 1) {
      const [key, item] = entries[i]!;
      stack.push({ node: item, path: [...path, key], depth: depth + 1, keyed: isObject });
    }
  }
  return found.slice(0, max);
}
