import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createImportPacer, createLanePacer, MAX_WAIT_MS } from './import-pacing.ts';

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

  describe('in lanes', () => {
    it('a lane waits after its own chunk slowed by other work while the other lane goes on', () => {
      const pacer = createLanePacer(2, true);
      // Two lanes in step, each chunk beside one of the other's.
      const a0 = pacer.begin(0, 1, 0);
      const b0 = pacer.begin(1, 1, 5);
      assert.equal(a0(150), 0, 'begun alone: not counted');
      const a1 = pacer.begin(0, 1, 151);
      assert.equal(b0(160), 0);
      const b1 = pacer.begin(1, 1, 161);
      assert.equal(a1(301), 0, 'its usual time: 150 ms');
      const a2 = pacer.begin(0, 1, 302);
      assert.equal(b1(311), 0);
      const b2 = pacer.begin(1, 1, 312);
      // Slowed to 300 ms; the usual time crept up by CREEP to 150.75 ms.
      assert.equal(a2(602), 149, 'lane A waits as long as its chunk was slowed');
      assert.equal(b2(610), 0, 'the other lane, no longer beside a chunk at its end, goes on');
    });

    it('does not count a chunk written alone (a step’s first or last), so side by side is not taken for slowed', () => {
      const pacer = createLanePacer(2, true);
      assert.equal(pacer.begin(0, 1, 0)(100), 0, 'alone: quicker, and not counted');
      const a = pacer.begin(0, 1, 200);
      const b = pacer.begin(1, 1, 201);
      assert.equal(a(350), 0);
      const a2 = pacer.begin(0, 1, 351);
      assert.equal(b(352), 0);
      const b2 = pacer.begin(1, 1, 353);
      assert.equal(a2(501), 0, 'beside another at both ends: 150 ms is its usual time, not a slowed chunk');
      b2(600);
    });
  });
});
