import { GraphQLError, Lexer, parse, Source, TokenKind, type DocumentNode } from 'graphql';

/** Largest document the parser reads; far above any real operation, well below a 1 MiB flood. */
export const MAX_TOKENS = 10_000;
/** Deepest nesting of `{`, `(` and `[`: the depth limit of 10 fields leaves room for nested input. */
export const MAX_NESTING = 100;
const CACHE_SIZE = 500;
/**
 * Texts longer than this are parsed every time and not kept: the cache is keyed by the whole text, and
 * 500 distinct bodies of up to 1 MiB would hold 500 MiB. Real operations are a few hundred bytes.
 */
const CACHED_TEXT_MAX = 16 * 1024;

const OPENING = new Set<TokenKind>([TokenKind.BRACE_L, TokenKind.PAREN_L, TokenKind.BRACKET_L]);
const CLOSING = new Set<TokenKind>([TokenKind.BRACE_R, TokenKind.PAREN_R, TokenKind.BRACKET_R]);

/**
 * graphql-js parses recursively: a document nested a few thousand levels deep overflows the stack
 * (a RangeError, which would be a 500). One pass of the lexer, which is iterative, refuses it first
 * as the syntax error it is. Past MAX_TOKENS the scan stops: the parser refuses that itself.
 */
function assertNesting(source: Source): void {
  const lexer = new Lexer(source);
  let depth = 0;
  let tokens = 0;
  for (let token = lexer.advance(); token.kind !== TokenKind.EOF && tokens < MAX_TOKENS; token = lexer.advance(), tokens += 1) {
    if (OPENING.has(token.kind)) {
      depth += 1;
      if (depth > MAX_NESTING) {
        throw new GraphQLError(`Syntax Error: The document nests deeper than ${MAX_NESTING} levels.`, { source, positions: [token.start] });
      }
    } else if (CLOSING.has(token.kind)) depth -= 1;
  }
}

export interface DocumentParser {
  /** The document of a GraphQL text, or its syntax error (a GraphQLError) thrown. */
  parse(text: string): DocumentNode;
}

/**
 * The one way a GraphQL text becomes a document: token cap, nesting cap, graphql-js's parser, and a
 * small cache of verdicts by text so a repeated operation (or a repeated bad one) is parsed once.
 * Run before Mercurius parses (its preParsing hook): a text this refuses never reaches Mercurius,
 * whose fallback would otherwise read an unparsable text as a JSON-encoded AST.
 */
export function createDocumentParser(): DocumentParser {
  const verdicts = new Map<string, DocumentNode | GraphQLError>();
  return {
    parse(text) {
      let verdict = verdicts.get(text);
      if (verdict === undefined) {
        const source = new Source(text);
        try {
          assertNesting(source);
          verdict = parse(source, { maxTokens: MAX_TOKENS });
        } catch (error) {
          if (!(error instanceof GraphQLError)) throw error;
          verdict = error;
        }
        if (text.length <= CACHED_TEXT_MAX) {
          if (verdicts.size >= CACHE_SIZE) verdicts.delete(verdicts.keys().next().value as string);
          verdicts.set(text, verdict);
        }
      }
      if (verdict instanceof GraphQLError) throw verdict;
      return verdict;
    },
  };
}
