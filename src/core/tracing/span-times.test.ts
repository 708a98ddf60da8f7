import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { HrTime } from '@opentelemetry/api';
import { timeInputToHrTime } from '@opentelemetry/core';
import { given, millisOr } from './span-times.ts';

describe("a span's times as kept", () => {
  it('read every kind of given time as the SDK does (timeInputToHrTime), around its relative/epoch threshold too', () => {
    const origin = performance.timeOrigin;
    const inputs: (number | Date | HrTime)[] = [
      performance.now(),
      0,
      12.5,
      origin / 2 - 1,
      origin / 2,
      origin / 2 + 0.25,
      origin,
      Date.now(),
      Date.now() + 0.123456,
      1_764_200_000_999.75,
      new Date(),
      [1_764_200_000, 123_456_789],
    ];
    for (const input of inputs) {
      const [millis, hr] = given(input);
      assert.deepEqual(millisOr(millis, hr), timeInputToHrTime(input), String(input));
    }
  });
});
