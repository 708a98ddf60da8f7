import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseTimestamptz } from './pg-types.ts';

describe('PostgreSQL timestamptz parsing', () => {
  it('gives the same ISO string as Date for every UTC form PostgreSQL prints', () => {
    for (const value of [
      '2025-01-01 00:00:00+00',
      '2025-01-01 00:00:00.5+00',
      '2025-01-01 00:00:00.12+00',
      '2025-12-31 23:59:59.999+00',
      '2025-06-15 12:34:56.123456+00',
      '2025-06-15 12:34:56.999999+00',
      '0999-01-01 00:00:00+00',
    ]) {
      assert.equal(parseTimestamptz(value), new Date(value).toISOString(), value);
    }
  });

  it('agrees with Date on random instants', () => {
    for (let i = 0; i < 1000; i += 1) {
      const date = new Date(Math.floor(Math.random() * 4102444800000));
      const micros = String(Math.floor(Math.random() * 1e6))
        .padStart(6, '0')
        .replace(/0+$/, '');
      const value = `${date.toISOString().slice(0, 19).replace('T', ' ')}${micros ? `.${micros}` : ''}+00`;
      assert.equal(parseTimestamptz(value), new Date(value).toISOString(), value);
    }
  });

  it('falls back to Date for other offsets', () => {
    assert.equal(parseTimestamptz('2025-01-01 05:30:00+05:30'), '2025-01-01T00:00:00.000Z');
    assert.equal(parseTimestamptz('2024-12-31 16:00:00.25-08'), '2025-01-01T00:00:00.250Z');
  });
});
