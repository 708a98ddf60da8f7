import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GraphQLError } from 'graphql';
import { parseDocument, retainedBytes } from './document-parser.ts';

const syntaxErrorOf = (text: string) => {
  const { verdict } = parseDocument(text);
  assert.ok(verdict instanceof GraphQLError, 'a syntax error');
  return verdict.message;
};

describe('the GraphQL document parser', () => {
  it('counts a document by its tokens (graphql-js keeps every token of a parsed document)', () => {
    const fields = Array.from({ length: 1000 }, (_, i) => `f${i}`).join(' ');
    const text = `{ users { ${fields} } }`;
    const { tokens } = parseDocument(text);
    assert.equal(tokens, 1005);
    assert.ok(retainedBytes(text, tokens) > 300_000);
  });

  it('refuses nesting past 100 levels and a text that is no GraphQL with a syntax error, never a stack overflow', () => {
    assert.match(
      syntaxErrorOf(`${'{ a '.repeat(5000)}${'}'.repeat(5000)}`),
      /Syntax Error: The document nests deeper than 100 levels/,
    );
    assert.match(syntaxErrorOf('{"kind":"Document","definitions":[]}'), /Syntax Error/);
    assert.match(syntaxErrorOf('\u0000'), /Syntax Error/);
  });
});
