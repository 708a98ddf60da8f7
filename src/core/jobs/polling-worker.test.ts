import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createPollingWorker } from './polling-worker.ts';

const silent = { error() {} };

describe('polling worker: wake', () => {
  it('steps soon after a wake instead of at the next poll', async () => {
    let steps = 0;
    const worker = createPollingWorker({
      name: 'test',
      intervalMs: 60_000,
      wakeDelayMs: 5,
      log: silent,
      step: async () => {
        steps += 1;
        return false;
      },
    });
    worker.start();
    await sleep(50);
    assert.equal(steps, 1, 'the first step runs at start');
    worker.wake();
    worker.wake();
    await sleep(100);
    assert.equal(steps, 2, 'two wakes before the step: one step');
    await worker.stop();
    worker.wake();
    await sleep(50);
    assert.equal(steps, 2, 'a stopped worker ignores wakes');
  });

  it('steps again right after the step in hand when woken during it', async () => {
    let steps = 0;
    let release = () => {};
    const worker = createPollingWorker({
      name: 'test',
      intervalMs: 60_000,
      log: silent,
      step: async () => {
        steps += 1;
        if (steps === 1) await new Promise<void>((resolve) => (release = resolve));
        return false;
      },
    });
    worker.start();
    await sleep(20);
    worker.wake();
    release();
    await sleep(50);
    assert.equal(steps, 2);
    await worker.stop();
  });
});
