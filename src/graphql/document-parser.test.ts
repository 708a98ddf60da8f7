import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createDocumentParser, retainedBytes } from './document-parser.ts';

describe('the GraphQL document parser', () => {
  it('keeps verdicts within its byte budget, oldest out first, and never one larger than the budget', () => {
    const small = '{ users { id } }';
    const budget = retainedBytes(small, 6) * 3;
    const parser = createDocumentParser(budget);
    assert.equal(parser.parse(small), parser.parse(small), 'a repeated text is parsed once');
    const large = `{ users { id } }\n# ${'x'.repeat(budget)}`;
    assert.notEqual(parser.parse(large), parser.parse(large), 'a text over the budget is never kept');
    const first = parser.parse(small);
    for (const n of [1, 2, 3]) parser.parse(`{ u${n} { id } }`);
    assert.notEqual(parser.parse(small), first, 'the oldest verdict made room for newer ones');
  });

  it('weighs a document by its tokens and its text (graphql-js keeps every token of a parsed document)', () => {
    const parser = createDocumentParser();
    const fields = Array.from({ length: 1000 }, (_, i) => `f${i}`).join(' ');
    const text = `{ users { ${fields} } }`;
    assert.equal(parser.weight(text), retainedBytes(text, 1005));
    assert.ok(parser.weight(text) > 300_000);
  });

  it('refuses nesting past 100 levels and a text that is no GraphQL with a syntax error, never a stack overflow', () => {
    const parser = createDocumentParser();
    assert.throws(
      () => parser.parse(`${'{ a '.repeat(5000)}${'}'.repeat(5000)}`),
      /Syntax Error: The document nests deeper than 100 levels/,
    );
    assert.throws(() => parser.parse('{"kind":"Document","definitions":[]}'), /Syntax Error/);
    assert.throws(() => parser.parse('\u0000'), /Syntax Error/);
  });
});
