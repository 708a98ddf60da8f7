import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Principal } from '../access/principal.ts';
import { AppError } from '../errors/app-error.ts';
import type { TokenVerifier } from '../access/tokens.ts';
import { memoizeTokenVerifier } from './verified-token-memo.ts';

/** A verifier that accepts `good-<id>` tokens and counts its calls; the clock is the test's. */
function fixture() {
  const clock = { now: 1_000_000 };
  let calls = 0;
  const inner: TokenVerifier = {
    async verify(token) {
      calls += 1;
      const match = /^good-(\d+)$/.exec(token);
      if (!match) throw AppError.unauthorized('Invalid access token');
      return { userId: Number(match[1]), role: 'user' } satisfies Principal;
    },
  };
  return { memo: memoizeTokenVerifier(inner, () => clock.now), clock, calls: () => calls };
}

describe('verified-token memo', () => {
  it('verifies a token once while it is remembered, and knows it without waiting once verified', async () => {
    const { memo, calls } = fixture();
    assert.equal(memo.verifiedNow?.('good-7'), undefined, 'not known before it was verified');
    const [first, second] = await Promise.all([memo.verify('good-7'), memo.verify('good-7')]);
    assert.deepEqual(first, { userId: 7, role: 'user' });
    assert.equal(second, first);
    assert.equal(calls(), 1);
    assert.equal(memo.verifiedNow?.('good-7'), first);
  });

  it('forgets a verified token after 5 seconds, so a changed key or revoked signer is checked again', async () => {
    const { memo, clock, calls } = fixture();
    await memo.verify('good-7');
    clock.now += 5_001;
    assert.equal(memo.verifiedNow?.('good-7'), undefined);
    await memo.verify('good-7');
    assert.equal(calls(), 2);
  });

  it('never reports a refused token as verified, and refuses it again without re-verifying for a second', async () => {
    const { memo, clock, calls } = fixture();
    await assert.rejects(memo.verify('forged'));
    assert.equal(memo.verifiedNow?.('forged'), undefined);
    await assert.rejects(memo.verify('forged'));
    assert.equal(calls(), 1);
    clock.now += 1_001;
    await assert.rejects(memo.verify('forged'));
    assert.equal(calls(), 2);
  });

  it('holds at most ~8 MB of token text: a flood of long distinct forgeries evicts the oldest entries, not the memory', async () => {
    const { memo, calls } = fixture();
    await memo.verify('good-1');
    // 600 forgeries of 15,000 characters (headers allow ~16 KB) are 9 MB of text.
    for (let i = 0; i < 600; i++) await assert.rejects(memo.verify(`forged-${i}-${'x'.repeat(15_000)}`));
    assert.equal(memo.verifiedNow?.('good-1'), undefined, 'the oldest entry made room');
    await memo.verify('good-1');
    assert.equal(calls(), 602);
  });
});
