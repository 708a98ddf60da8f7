import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decideOutcome } from './delivery-record.ts';
import { createSuccessLog, settling } from './delivery-successes.ts';

const NOW = Date.UTC(2026, 10, 28, 12, 0, 0);
const SCHEDULE = [5_000, 60_000];
const middle = () => 0.5; // no jitter

describe('webhook delivery record stage: what an attempt makes of its delivery', () => {
  it('a 2xx succeeds, with its status', () => {
    assert.deepEqual(decideOutcome({ kind: 'answered', status: 204, retryAfter: undefined }, 0, SCHEDULE, NOW), {
      kind: 'succeeded',
      responseStatus: 204,
    });
  });

  it('a 410 is gone (the endpoint is disabled, the delivery waits)', () => {
    assert.deepEqual(decideOutcome({ kind: 'answered', status: 410, retryAfter: undefined }, 3, SCHEDULE, NOW), {
      kind: 'gone',
    });
  });

  it('any other status, a 3xx included, fails and is tried again on the schedule', () => {
    for (const status of [301, 400, 500]) {
      const outcome = decideOutcome({ kind: 'answered', status, retryAfter: undefined }, 0, SCHEDULE, NOW, middle);
      assert.deepEqual(outcome, {
        kind: 'failed',
        label: 'failed',
        responseStatus: status,
        error: null,
        nextAttemptAt: NOW + 5_000,
      });
    }
  });

  it('a Retry-After on 429 or 503 only ever pushes the next attempt later', () => {
    const later = decideOutcome({ kind: 'answered', status: 429, retryAfter: '120' }, 0, SCHEDULE, NOW, middle);
    assert.equal(later.kind === 'failed' && later.nextAttemptAt, NOW + 120_000);
    const sooner = decideOutcome({ kind: 'answered', status: 503, retryAfter: '1' }, 0, SCHEDULE, NOW, middle);
    assert.equal(sooner.kind === 'failed' && sooner.nextAttemptAt, NOW + 5_000);
    const ignored = decideOutcome({ kind: 'answered', status: 500, retryAfter: '120' }, 0, SCHEDULE, NOW, middle);
    assert.equal(ignored.kind === 'failed' && ignored.nextAttemptAt, NOW + 5_000);
  });

  it('no answer is a timeout, a refused address is refused, each with its error', () => {
    const timeout = decideOutcome({ kind: 'failed', error: 'no answer within 10000 ms' }, 0, SCHEDULE, NOW, middle);
    assert.equal(timeout.kind === 'failed' && timeout.label, 'timeout');
    assert.equal(timeout.kind === 'failed' && timeout.error, 'no answer within 10000 ms');
    const refused = decideOutcome({ kind: 'refused', error: 'private address' }, 0, SCHEDULE, NOW, middle);
    assert.equal(refused.kind === 'failed' && refused.label, 'refused');
    const failed = decideOutcome({ kind: 'failed', error: 'ECONNREFUSED' }, 0, SCHEDULE, NOW, middle);
    assert.equal(failed.kind === 'failed' && failed.label, 'failed');
  });

  it('past the schedule a failure is dead', () => {
    const last = decideOutcome({ kind: 'answered', status: 500, retryAfter: undefined }, 1, SCHEDULE, NOW, middle);
    assert.equal(last.kind === 'failed' && last.nextAttemptAt, NOW + 60_000);
    const dead = decideOutcome({ kind: 'answered', status: 500, retryAfter: undefined }, 2, SCHEDULE, NOW, middle);
    assert.equal(dead.kind === 'failed' && dead.nextAttemptAt, undefined);
  });
});

describe('webhook delivery successes: logged, then recorded by the next transaction', () => {
  it('keeps taken successes for the next transaction when one fails or does not record them', async () => {
    const reported: number[] = [];
    const log = createSuccessLog((latency) => reported.push(latency));
    log.add({ id: 1, committed: Date.now(), status: 200, holder: 'h' });
    const failing = log.take();
    assert.equal(log.size, 0);
    await assert.rejects(
      settling(failing, () => Promise.reject(new Error('rolled back'))),
      /rolled back/,
    );
    assert.equal(log.size, 1, 'back in the log after a failed transaction');
    await settling(log.take(), async () => {});
    assert.equal(log.size, 1, 'back in the log when the transaction did not record them');
    assert.deepEqual(reported, []);
  });
});
