import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createImportPacer, MAX_WAIT_MS } from './import-pacing.ts';

describe('import pacing', () => {
  it('never waits while chunks take their usual time', () => {
    const pacer = createImportPacer(true);
    for (const ms of [120, 100, 104, 98, 110, 101]) assert.equal(pacer.after(1, ms), 0);
  });

  it('after a chunk slowed by other work, waits as long as it was slowed', () => {
    const pacer = createImportPacer(true);
    pacer.after(1, 100);
    assert.equal(pacer.after(1, 260), 160);
    assert.equal(pacer.after(1, 101), 0, 'back to its usual time: no wait');
  });

  it('waits at most MAX_WAIT_MS, so an import under steady load still advances', () => {
    const pacer = createImportPacer(true);
    pacer.after(1, 100);
    assert.equal(pacer.after(1, 5000), MAX_WAIT_MS);
  });

  it('lets the usual time creep up with a growing table, so a slow drift causes no wait', () => {
    const pacer = createImportPacer(true);
    let ms = 100;
    for (let chunk = 0; chunk < 400; chunk += 1) {
      assert.equal(pacer.after(1, ms), 0, `chunk ${chunk} at ${ms.toFixed(1)} ms`);
      ms *= 1.004;
    }
  });

  it("starts each job's usual time afresh (a users chunk is not a products chunk)", () => {
    const pacer = createImportPacer(true);
    pacer.after(1, 20);
    assert.equal(pacer.after(2, 200), 0);
    assert.equal(pacer.after(2, 210), 0);
  });

  it('with IMPORT_YIELD=false never waits', () => {
    const pacer = createImportPacer(false);
    pacer.after(1, 100);
    assert.equal(pacer.after(1, 900), 0);
  });
});
