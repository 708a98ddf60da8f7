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
 * distinct large documents sent without a token grew the server without bound before these budgets.
 */
export function retainedBytes(text: string, tokens: number): number {
  return tokens * 1200 + text.length * 2;
}

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

/** A text's verdict: its document, or its syntax error; and its tokens (what a kept document weighs). */
export interface ParsedText {
  verdict: DocumentNode | GraphQLError;
  tokens: number;
}

/**
 * The one way a GraphQL text becomes a document: token cap, nesting cap, then graphql-js's parser.
 * No cache here: the operation cache (operation-cache.ts) keeps each text's verdict with its
 * validation and compilation, one entry per text.
 */
export function parseDocument(text: string): ParsedText {
  const source = new Source(text);
  let tokens = MAX_TOKENS;
  try {
    tokens = assertNesting(source);
    return { verdict: parse(source, { maxTokens: MAX_TOKENS }), tokens };
  } catch (error) {
    if (!(error instanceof GraphQLError)) throw error;
    return { verdict: error, tokens };
  }
}
