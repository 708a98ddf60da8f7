import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { inputProblems, MAX_INPUT_DEPTH, TOO_DEEP_MESSAGE, UNSTORABLE_TEXT_MESSAGE } from './input-rules.ts';

/** A value nested `levels` deep, built as text and parsed (JSON.stringify would recurse). */
const nested = (levels: number, open = '{"a":', close = '}') =>
  JSON.parse(`${open.repeat(levels)}"x"${close.repeat(levels)}`) as unknown;

describe('inputProblems: the walk over client-supplied JSON', () => {
  it('walks a value nested 100,000 levels deep without overflowing the stack and names where it got too deep', () => {
    for (const [open, close] of [
      ['{"a":', '}'],
      ['[', ']'],
    ] as const) {
      const problems = inputProblems(nested(100_000, open, close));
      assert.equal(problems.length, 1);
      assert.equal(problems[0]!.message, TOO_DEEP_MESSAGE);
      assert.equal(problems[0]!.path.split('.').length, MAX_INPUT_DEPTH);
    }
  });

  it('accepts nesting up to the bound', () => {
    assert.deepEqual(inputProblems(nested(MAX_INPUT_DEPTH - 1)), []);
    assert.equal(inputProblems(nested(MAX_INPUT_DEPTH + 1)).length, 1);
  });

  it('names unstorable strings and keys in document order, at most `max` of them', () => {
    const value = { a: 'ok', b: ['x', 'nul\u0000'], ['k\ud800']: 'fine', c: { d: '\udc00' } };
    assert.deepEqual(inputProblems(value, ['input']), [
      { path: 'input.b.1', message: UNSTORABLE_TEXT_MESSAGE },
      { path: 'input.(a key)', message: UNSTORABLE_TEXT_MESSAGE },
      { path: 'input.c.d', message: UNSTORABLE_TEXT_MESSAGE },
    ]);
    assert.equal(
      inputProblems(
        Array.from({ length: 50 }, () => '\u0000'),
        [],
        10,
      ).length,
      10,
    );
  });
});
