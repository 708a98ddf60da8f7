import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bodyAjv, textAjv } from './ajv.ts';
import { commaListPattern, distinctListPattern, oneOfPattern } from './comma-list-patterns.ts';

/** Issue 75 B2: `multipleOf: 0.01` in the schema that validates is the rule the documents state. */
describe('multipleOf 0.01 under the validators', () => {
  const cents = { type: 'number', minimum: 0, maximum: 100_000_000, multipleOf: 0.01 };

  it('accepts every two-decimal price, those whose float quotient by 0.01 is off an integer too', () => {
    for (const ajv of [bodyAjv, textAjv]) {
      const validate = ajv.compile(cents);
      for (const price of [0, 0.07, 0.29, 0.57, 1.15, 19.99, 89.99, 74003735.6, 99_999_999.99, 100_000_000]) {
        assert.ok(validate(price), String(price));
      }
    }
  });

  it('refuses a third decimal, and a price out of range', () => {
    const validate = bodyAjv.compile(cents);
    for (const price of [10.123, 1.005, 0.001, 19.995, -0.01, 100_000_000.01, 1e20]) {
      assert.ok(!validate(price), String(price));
    }
  });
});

describe('comma-list patterns', () => {
  const names = ['price', 'name', 'createdAt'];
  const test = (pattern: string, text: string) => new RegExp(pattern, 'u').test(text);

  it('take the names with the spaces a parser trims, and nothing else', () => {
    const pattern = commaListPattern(oneOfPattern(names), { empty: true });
    for (const text of ['', ' ', 'price', ' price , name ', 'name,createdAt']) assert.ok(test(pattern, text), text);
    for (const text of ['pric', 'price,', ',price', 'price;name', 'price.name', 'createdat']) {
      assert.ok(!test(pattern, text), text);
    }
  });

  it('skip empty items and count only named ones when the parser does', () => {
    const pattern = commaListPattern(oneOfPattern(names), { emptyItems: true, maxItems: 2 });
    for (const text of ['', ',,', 'price,,name', ' , price ,']) assert.ok(test(pattern, text), text);
    for (const text of ['price,name,createdAt', 'price name']) assert.ok(!test(pattern, text), text);
  });

  it('refuse a name twice, with or without its prefix, when the parser does', () => {
    const pattern = distinctListPattern(names, '-?', { empty: true });
    for (const text of ['-price,name', 'name, -createdAt', '']) assert.ok(test(pattern, text), text);
    for (const text of ['price,price', 'price,-price', 'name,\n price,\n -name', '-name , x']) {
      assert.ok(!test(pattern, text), text);
    }
  });
});
