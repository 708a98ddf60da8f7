import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseSeedOptions, SeedOptionsError } from './seed-options.ts';
import { orderPlan, productRow, userRow } from './seed-rows.ts';

describe('seed options', () => {
  it('defaults to the standard benchmark data set', () => {
    assert.deepEqual(parseSeedOptions([]), {
      users: 1000,
      postsPerUser: 10,
      commentsPerPost: 5,
      likesPerComment: 2,
      products: 10_000,
      categories: 20,
      orders: 2000,
      seed: 42,
    });
  });

  it('reads every option', () => {
    const args =
      '--users 3 --posts-per-user 4 --comments-per-post 5 --likes-per-comment 1 --products 6 --categories 7 --orders 8 --seed 9';
    assert.deepEqual(parseSeedOptions(args.split(' ')), {
      users: 3,
      postsPerUser: 4,
      commentsPerPost: 5,
      likesPerComment: 1,
      products: 6,
      categories: 7,
      orders: 8,
      seed: 9,
    });
  });

  it('answers undefined for --help', () => {
    assert.equal(parseSeedOptions(['--help']), undefined);
  });

  it('rejects anything but a non-negative integer, naming the option', () => {
    const cases: [string[], RegExp][] = [
      [['--users', 'abc'], /^seed: --users must be an integer from 0 to 20000000 \(got "abc"\)$/],
      [['--products=-5'], /--products must be an integer/],
      [['--orders', '1.5'], /--orders must be an integer/],
      [['--categories', '1e3'], /--categories must be an integer/],
      [['--users', ''], /--users must be an integer/],
      [['--products', '20000001'], /--products must be an integer from 0 to 20000000/],
      [['--seed', '4294967296'], /--seed must be an integer from 0 to 4294967295/],
    ];
    for (const [args, message] of cases) {
      assert.throws(
        () => parseSeedOptions(args),
        (e: Error) => e instanceof SeedOptionsError && message.test(e.message),
        args.join(' '),
      );
    }
  });

  it('rejects unknown options and missing values in one line', () => {
    for (const args of [['--colour', 'red'], ['--users'], ['extra']]) {
      assert.throws(
        () => parseSeedOptions(args),
        (e: Error) =>
          e instanceof SeedOptionsError &&
          /^seed: .+ \(see seed --help\)$/.test(e.message) &&
          !e.message.includes('\n'),
        args.join(' '),
      );
    }
  });

  it('rejects combinations that cannot be generated', () => {
    assert.throws(() => parseSeedOptions(['--products', '5', '--categories', '0']), /--categories must be at least 1/);
    assert.throws(() => parseSeedOptions(['--users', '0']), /--orders needs at least one seeded user/);
    assert.throws(
      () => parseSeedOptions(['--products', '0']),
      /--orders needs at least one seeded user and one seeded product/,
    );
    assert.throws(() => parseSeedOptions(['--users', '20000000']), /that makes 200000000 posts/);
    assert.ok(parseSeedOptions(['--users', '0', '--orders', '0', '--products', '1000000']));
  });
});

describe('seed rows', () => {
  it('prices products from 1.00 to 999.99 in cents with about one in ten out of stock', () => {
    const products = Array.from({ length: 5000 }, (_, i) => productRow(1, i, 20));
    assert.ok(
      products.every((p) => p.price_cents >= 100 && p.price_cents <= 99_999 && Number.isInteger(p.price_cents)),
    );
    const outOfStock = products.filter((p) => p.stock === 0).length / products.length;
    assert.ok(outOfStock > 0.07 && outOfStock < 0.13, `${outOfStock}`);
    assert.equal(new Set(products.map((p) => p.category)).size, 20);
    assert.ok(products.every((p) => /^category-(0[1-9]|1\d|20)$/.test(p.category)));
  });

  it('derives every timestamp from a fixed date, not the clock', () => {
    assert.equal(userRow(1, 0, 0).created_at, '2025-01-01T00:00:00.000Z');
    assert.deepEqual(orderPlan(1, 5, 10, 10, 'USD'), orderPlan(1, 5, 10, 10, 'USD'));
  });

  it('puts the run tag into emails so a second run does not collide', () => {
    assert.notEqual(userRow(1, 0, 0).email, userRow(1, 0, 1000).email);
    assert.match(userRow(1, 0, 1000).email, /^r1000\.[a-z]+\.[a-z]+\.1@example\.com$/);
  });

  it('gives an order 1-3 distinct products even when the catalogue is tiny', () => {
    for (let i = 0; i < 200; i++) {
      const plan = orderPlan(3, i, 5, 2, 'USD');
      const products = plan.items.map((item) => item.productIndex);
      assert.equal(new Set(products).size, products.length);
      assert.ok(products.length >= 1 && products.length <= 2);
    }
  });
});
