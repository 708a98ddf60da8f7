/**
 * The `pattern`s (JSON Schema, ECMAScript syntax with ajv's `u` flag) of the comma-list parameters of
 * lists: `sort`, `include`, `facets`, an enum's `in`... Each is built from the same names the parser
 * checks against (the grammar, the embedding's paths, the facets), so the published document states the
 * rule the service holds and the two cannot drift; ajv checks the pattern before the parser runs, and
 * the parser keeps its own messages for what a pattern cannot say well (who may sort by a field).
 */

/** A literal name as a regular expression (identifiers, dots, colons and parentheses are all they hold). */
const literal = (name: string) => name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** One of `names`, literally: a non-capturing alternative. */
export const oneOfPattern = (names: readonly string[]) => `(?:${names.map(literal).join('|')})`;

export interface CommaListOptions {
  /** Whether the whole value may be empty (or only spaces): the parser then reads no item. */
  empty?: boolean;
  /** Whether items may be empty (`a,,b`): the parser skips them (and so a value of commas is empty). */
  emptyItems?: boolean;
  /** At most this many (non-empty) items. */
  maxItems?: number;
}

const quantifier = (maxItems: number | undefined) => (maxItems === undefined ? '*' : `{0,${maxItems - 1}}`);

/** `item (, item)*` as the parsers split on commas and trim each item, without anchors. */
function listBody(item: string, options: CommaListOptions): string {
  const more = quantifier(options.maxItems);
  if (options.emptyItems) return `[\\s,]*(?:${item}(?:\\s*,[\\s,]*${item})${more})?[\\s,]*`;
  const list = `\\s*${item}\\s*(?:,\\s*${item}\\s*)${more}`;
  return options.empty ? `(?:\\s*|${list})` : list;
}

/**
 * The comma-list patterns made here: each states a parser's rule exactly, and that parser names the
 * wrong item in its 422 (`unknown measure "median(amount)"`), where a failed pattern could only quote
 * itself. The request validator leaves these patterns to their parsers (request-validator.ts); the
 * documents carry them, and test/contract/document-constraints.test.ts holds the two to each other.
 */
export const PARSED_LIST_PATTERNS = new Set<string>();

const parsed = (pattern: string) => (PARSED_LIST_PATTERNS.add(pattern), pattern);

/** A comma list of `item`s, anchored. */
export function commaListPattern(item: string, options: CommaListOptions = {}): string {
  return parsed(`^${listBody(item, options)}$`);
}

/**
 * A comma list of `names`, each with an optional `prefix` (a sort's `-?`), in which no name comes twice,
 * with or without its prefix (a lookahead finds a repeated one).
 */
export function distinctListPattern(names: readonly string[], prefix: string, options: CommaListOptions = {}): string {
  const name = `(${names.map(literal).join('|')})`;
  const repeated = `(?!(?:[\\s\\S]*,)?\\s*${prefix}${name}\\s*,(?:[\\s\\S]*,)?\\s*${prefix}\\1\\s*(?:,|$))`;
  return parsed(`^${repeated}${listBody(`${prefix}${oneOfPattern(names)}`, options)}$`);
}
