import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../../core/errors/app-error.ts';
import { decodePostCursor, encodePostCursor } from './post-cursor.ts';

describe('post cursor', () => {
  it('round-trips an id through an opaque base64url string', () => {
    for (const id of [1, 42, 2147483647]) {
      const cursor = encodePostCursor(id);
      assert.match(cursor, /^[A-Za-z0-9_-]+$/);
      assert.ok(!cursor.includes(String(id)) || id < 10, 'the id is not readable as is');
      assert.equal(decodePostCursor(cursor), id);
    }
  });

  it('rejects anything it did not issue with a 422 naming cursor', () => {
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const bad = [
      '',
      '!!!',
      'abc=',
      'a b',
      '12',
      encode({ id: 0 }),
      encode({ id: -3 }),
      encode({ id: 1.5 }),
      encode({ id: '7' }),
      encode({ id: 2147483648 }),
      encode(null),
      encode([1]),
      encode({}),
      Buffer.from('{"id":').toString('base64url'),
      'x'.repeat(100),
    ];
    for (const cursor of bad) {
      assert.throws(
        () => decodePostCursor(cursor),
        (error: unknown) =>
          error instanceof AppError &&
          error.status === 422 &&
          error.code === 'VALIDATION_ERROR' &&
          error.details?.[0]?.field === 'cursor',
        cursor,
      );
    }
  });
});
