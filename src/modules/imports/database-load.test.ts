import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLoadGauge } from './database-load.ts';

/** A gauge over a transaction count and a clock the test moves. */
function gaugeAt(busyPerSecond = 300, windowMs = 2000) {
  const state = { at: 0, count: 0, reads: 0, fail: false };
  const gauge = createLoadGauge(
    async () => {
      state.reads += 1;
      if (state.fail) throw new Error('statistics unreadable');
      return state.count;
    },
    { windowMs, busyPerSecond },
    () => state.at,
  );
  /** `others` transactions of other sessions over the next `ms`, then the gauge's verdict. */
  const after = (ms: number, others: number) => {
    state.at += ms;
    state.count += others;
    return gauge.busy();
  };
  return { gauge, state, after };
}

describe('the database load gauge (lanes only while the database serves little else)', () => {
  it('counts the database busy until a first window has been read: an import begins in one lane', async () => {
    const { gauge } = gaugeAt();
    assert.equal(await gauge.busy(), true);
  });

  it('calls the database quiet when others ran fewer than busyPerSecond transactions a second over the window', async () => {
    const { after } = gaugeAt(300);
    await after(0, 0);
    assert.equal(await after(2000, 599), false, '299.5 a second');
  });

  it('calls it busy from busyPerSecond on, as under an API serving requests', async () => {
    const { after } = gaugeAt(300);
    await after(0, 0);
    assert.equal(await after(2000, 600), true, '300 a second');
    assert.equal(await after(2000, 8000), true);
    assert.equal(await after(2000, 10), false, 'the load over: quiet again after a window');
  });

  it("does not count the import's own transactions as other work", async () => {
    const { gauge, after } = gaugeAt(300);
    await after(0, 0);
    gauge.own(900);
    assert.equal(await after(2000, 900 + 100), false, '100 of the 1,000 were others');
  });

  it('reads the statistics at most once a window, keeping its last verdict in between', async () => {
    const { state, after } = gaugeAt(300);
    await after(0, 0);
    assert.equal(await after(2000, 5000), true);
    const reads = state.reads;
    assert.equal(await after(500, 0), true, 'within the window: the last verdict');
    assert.equal(await after(500, 0), true);
    assert.equal(state.reads, reads, 'no reading within the window');
    assert.equal(await after(1000, 0), false, 'a window on: read again, over the whole 2 s');
    assert.equal(state.reads, reads + 1);
  });

  it('counts the database busy when its statistics cannot be read', async () => {
    const { state, after } = gaugeAt(300);
    await after(0, 0);
    assert.equal(await after(2000, 0), false);
    state.fail = true;
    assert.equal(await after(2000, 0), true);
  });
});
