import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { containsPattern } from '../../core/db/like-pattern.ts';
import {
  centsOf,
  hasAtMostTwoDecimals,
  lowerBoundCents,
  priceOf,
  upperBoundCents,
  parseProductSort,
} from './product.ts';
import { PRODUCT_SORTS } from './products.presenter.ts';

describe('parseProductSort', () => {
  const parse = (raw: string | undefined) => parseProductSort(raw, PRODUCT_SORTS);

  it('gives no keys (ascending id) when absent or empty', () => {
    assert.deepEqual(parse(undefined), []);
    assert.deepEqual(parse(''), []);
  });

  it('reads the five whitelisted values with their directions, in order', () => {
    assert.deepEqual(parse('-price,name'), [
      { key: 'price', direction: 'desc' },
      { key: 'name', direction: 'asc' },
    ]);
    assert.deepEqual(parse('created_at'), [{ key: 'createdAt', direction: 'asc' }]);
    assert.deepEqual(parse(' -name , price '), [
      { key: 'name', direction: 'desc' },
      { key: 'price', direction: 'asc' },
    ]);
  });

  it('falls back to ascending id when any value is outside the whitelist', () => {
    for (const raw of [
      'id',
      '-created_at',
      'price,stock',
      'price;drop table products',
      'PRICE',
      '__proto__',
      'constructor',
      'toString',
    ]) {
      assert.deepEqual(parse(raw), [], raw);
    }
  });

  it('keeps the first direction of a repeated key', () => {
    assert.deepEqual(parse('price,-price'), [{ key: 'price', direction: 'asc' }]);
  });
});

describe('money', () => {
  it('accepts prices with at most two decimals, including those that are not exact floats', () => {
    for (const price of [0, 1, 0.07, 0.1, 0.29, 19.99, 1234567.89, 100_000_000])
      assert.ok(hasAtMostTwoDecimals(price), String(price));
  });

  it('refuses prices with more than two decimals', () => {
    for (const price of [0.001, 1.005, 19.999, 0.125, Number.NaN, Number.POSITIVE_INFINITY]) {
      assert.ok(!hasAtMostTwoDecimals(price), String(price));
    }
  });

  it('converts between prices and cents exactly', () => {
    assert.equal(centsOf(0.29), 29);
    assert.equal(centsOf(0.07), 7);
    assert.equal(centsOf(19.99), 1999);
    assert.equal(priceOf(1999), 19.99);
    assert.equal(priceOf(7), 0.07);
  });

  it('turns inclusive bounds into cents: exact cents kept, others rounded inwards', () => {
    assert.equal(lowerBoundCents(0.07), 7);
    assert.equal(upperBoundCents(0.07), 7);
    assert.equal(lowerBoundCents(10.005), 1001);
    assert.equal(upperBoundCents(10.005), 1000);
    assert.equal(lowerBoundCents(-3), -300);
  });

  it('clamps huge bounds to safe integers', () => {
    assert.equal(lowerBoundCents(1e300), Number.MAX_SAFE_INTEGER);
    assert.equal(upperBoundCents(-1e300), -Number.MAX_SAFE_INTEGER);
  });
});

describe('containsPattern', () => {
  it('wraps the text in % wildcards', () => {
    assert.equal(containsPattern('lamp'), '%lamp%');
  });

  it('escapes %, _ and the escape character itself', () => {
    assert.equal(containsPattern('50%_off\\'), '%50\\%\\_off\\\\%');
  });

  it('leaves quotes alone: the pattern is a bound parameter', () => {
    assert.equal(containsPattern("'; DROP TABLE products; --"), "%'; DROP TABLE products; --%");
  });
});
