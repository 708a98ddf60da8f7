import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createDocumentParser } from './document-parser.ts';

describe('the GraphQL document parser', () => {
  it('keeps the verdict of a small text and never the text of a large one (a cache of 1 MiB keys would hold 500 MiB)', () => {
    const parser = createDocumentParser();
    const small = '{ users { id } }';
    assert.equal(parser.parse(small), parser.parse(small));
    const large = `{ users { id } }\n# ${'x'.repeat(32 * 1024)}`;
    assert.notEqual(parser.parse(large), parser.parse(large));
  });

  it('refuses nesting past 100 levels and a text that is no GraphQL with a syntax error, never a stack overflow', () => {
    const parser = createDocumentParser();
    assert.throws(() => parser.parse(`${'{ a '.repeat(5000)}${'}'.repeat(5000)}`), /Syntax Error: The document nests deeper than 100 levels/);
    assert.throws(() => parser.parse('{"kind":"Document","definitions":[]}'), /Syntax Error/);
    assert.throws(() => parser.parse('\u0000'), /Syntax Error/);
  });
});
