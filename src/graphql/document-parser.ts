import { GraphQLError, Lexer, parse, Source, TokenKind, type DocumentNode } from 'graphql';

/** Largest document the parser reads; far above any real operation, well below a 1 MiB flood. */
export const MAX_TOKENS = 10_000;
/** Deepest nesting of `{`, `(` and `[`: the depth limit of 10 fields leaves room for nested input. */
export const MAX_NESTING = 100;
/**
 * What a cached document keeps alive, estimated from its text: graphql-js's AST keeps every token (each
 * node's location points into the token list), and a document that fails validation may be kept with its
 * errors, each with its captured stack: the bytes a token are the measured worst case (documents of
 * thousands of unknown fields), plus the text itself, the cache key. A count of entries bounds nothing:
 * distinct large documents sent without a token grew the server by gigabytes before these budgets
 * (bench/RESULTS.md, session 2, change 21).
 */
export function retainedBytes(text: string, tokens: number): number {
  return tokens * 1200 + text.length * 2;
}

/** The parser's own cache of verdicts keeps at most this much (estimated), oldest out first. */
const VERDICT_CACHE_BYTES = 32 * 1024 * 1024;

const OPENING = new Set<TokenKind>([TokenKind.BRACE_L, TokenKind.PAREN_L, TokenKind.BRACKET_L]);
const CLOSING = new Set<TokenKind>([TokenKind.BRACE_R, TokenKind.PAREN_R, TokenKind.BRACKET_R]);

/**
 * graphql-js parses recursively: a document nested a few thousand levels deep overflows the stack
 * (a RangeError, which would be a 500). One pass of the lexer, which is iterative, refuses it first
 * as the syntax error it is. Past MAX_TOKENS the scan stops: the parser refuses that itself.
 */
function assertNesting(source: Source): number {
  const lexer = new Lexer(source);
  let depth = 0;
  let tokens = 0;
  for (
    let token = lexer.advance();
    token.kind !== TokenKind.EOF && tokens < MAX_TOKENS;
    token = lexer.advance(), tokens += 1
  ) {
    if (OPENING.has(token.kind)) {
      depth += 1;
      if (depth > MAX_NESTING) {
        throw new GraphQLError(`Syntax Error: The document nests deeper than ${MAX_NESTING} levels.`, {
          source,
          positions: [token.start],
        });
      }
    } else if (CLOSING.has(token.kind)) depth -= 1;
  }
  return tokens;
}

export interface DocumentParser {
  /** The document of a GraphQL text, or its syntax error (a GraphQLError) thrown. */
  parse(text: string): DocumentNode;
  /** What a document of this text keeps alive once parsed (`retainedBytes`), for caches holding one. */
  weight(text: string): number;
}

/**
 * The one way a GraphQL text becomes a document: token cap, nesting cap, graphql-js's parser, and a
 * small cache of verdicts by text so a repeated operation (or a repeated bad one) is parsed once.
 * The route calls it before it hands a text to Mercurius (graphql.routes.ts): a text this refuses never
 * reaches Mercurius, whose fallback would otherwise read an unparsable text as a JSON-encoded AST.
 * The compiled operations take their documents from it (compiled-operations.ts).
 */
export function createDocumentParser(cacheBytes = VERDICT_CACHE_BYTES): DocumentParser {
  const verdicts = new Map<string, { verdict: DocumentNode | GraphQLError; weight: number }>();
  let cached = 0;
  // The last text parsed: `weight` right after `parse` of a text too large to cache must not parse it again.
  let last: { text: string; entry: { verdict: DocumentNode | GraphQLError; weight: number } } | undefined;
  const judge = (text: string) => {
    let entry = verdicts.get(text);
    if (entry === undefined) {
      const source = new Source(text);
      let verdict: DocumentNode | GraphQLError;
      let tokens = MAX_TOKENS;
      try {
        tokens = assertNesting(source);
        verdict = parse(source, { maxTokens: MAX_TOKENS });
      } catch (error) {
        if (!(error instanceof GraphQLError)) throw error;
        verdict = error;
      }
      entry = { verdict, weight: retainedBytes(text, tokens) };
      if (entry.weight <= cacheBytes) {
        cached += entry.weight;
        verdicts.set(text, entry);
        for (const [oldest, { weight }] of verdicts) {
          if (cached <= cacheBytes) break;
          verdicts.delete(oldest);
          cached -= weight;
        }
      }
    }
    last = { text, entry };
    return entry;
  };
  return {
    parse(text) {
      const { verdict } = judge(text);
      if (verdict instanceof GraphQLError) throw verdict;
      return verdict;
    },
    weight: (text) => (last?.text === text ? last.entry : judge(text)).weight,
  };
}
