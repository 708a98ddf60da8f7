import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nextAttemptAt, parseRetryAfter, parseRetrySchedule, withJitter } from './retry-schedule.ts';

describe('webhook retry schedule', () => {
  it('parses durations with ms, s, m and h', () => {
    assert.deepEqual(
      parseRetrySchedule('5s,5m,30m,2h,5h,10h,10h'),
      [5000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000],
    );
    assert.deepEqual(parseRetrySchedule(' 50ms , 1.5s '), [50, 1500]);
    assert.throws(() => parseRetrySchedule('5x'), /WEBHOOK_RETRY_SCHEDULE/);
  });

  it('jitters each wait by at most ±20 %', () => {
    assert.equal(
      withJitter(1000, () => 0),
      800,
    );
    assert.equal(
      withJitter(1000, () => 1),
      1200,
    );
    for (let i = 0; i < 100; i += 1) {
      const wait = withJitter(1000);
      assert.ok(wait >= 800 && wait <= 1200, String(wait));
    }
  });

  it('gives the next attempt after each failure, none after the last, never before a Retry-After', () => {
    const schedule = [1000, 60_000];
    const half = () => 0.5;
    assert.equal(nextAttemptAt(schedule, 1, 0, undefined, half), 1000);
    assert.equal(nextAttemptAt(schedule, 2, 0, undefined, half), 60_000);
    assert.equal(nextAttemptAt(schedule, 3, 0, undefined, half), undefined, 'dead after the last');
    assert.equal(nextAttemptAt(schedule, 1, 0, 30_000, half), 30_000, 'Retry-After later than the schedule wins');
    assert.equal(nextAttemptAt(schedule, 1, 0, 10, half), 1000, 'an earlier Retry-After does not hurry it');
  });

  it('reads Retry-After as seconds or an HTTP-date', () => {
    assert.equal(parseRetryAfter('120', 1000), 121_000);
    assert.equal(parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT', 0), Date.parse('2015-10-21T07:28:00Z'));
    assert.equal(parseRetryAfter('soon', 0), undefined);
    assert.equal(parseRetryAfter(undefined, 0), undefined);
  });
});
