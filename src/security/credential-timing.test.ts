import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../test-support/dialects.ts';
import { startTestServer, type TestServer } from '../test-support/test-server.ts';
import { SECURITY_TEST_ENV } from './security-test-env.test-support.ts';

const SAMPLES = 11;
/** Generous on purpose: a shared 2-core machine is noisy. A missing hash check would be ~50× faster. */
const MAX_MEDIAN_RATIO = 2;

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

for (const dialect of DIALECTS) {
  describe(`credential checks reveal nothing by answer or time (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    const known = { email: `timing-${Date.now()}@example.com`, password: 'the-right-password' };
    let passwordless: string;
    before(async () => {
      t = await startTestServer(dialect, { ...SECURITY_TEST_ENV, RATE_LIMIT_AUTH_MAX: '1000' });
      await t.createUser({ email: known.email, password: known.password });
      passwordless = (await t.createUser()).user.email as string;
    });
    after(() => t?.close());

    async function timeAttempt(email: string, password: string): Promise<{ ms: number; status: number; body: string }> {
      const started = performance.now();
      const res = await t.request('POST', '/api/auth/token', { body: { email, password } });
      return { ms: performance.now() - started, status: res.status, body: res.text };
    }

    it('answers an unknown email, a wrong password and a password-less account alike, in similar time', async () => {
      const times = { unknown: [] as number[], wrong: [] as number[], passwordless: [] as number[] };
      const bodies = new Set<string>();
      // Interleaved, so drift in machine load hits every kind equally.
      for (let i = 0; i < SAMPLES; i++) {
        for (const [kind, email] of [['unknown', `nobody-${i}@example.com`], ['wrong', known.email], ['passwordless', passwordless]] as const) {
          const attempt = await timeAttempt(email, `wrong-password-${i}`);
          assert.equal(attempt.status, 401, attempt.body);
          bodies.add(attempt.body);
          times[kind].push(attempt.ms);
        }
      }
      assert.equal(bodies.size, 1, `one answer for every failure: ${[...bodies].join(' | ')}`);
      const medians = Object.fromEntries(Object.entries(times).map(([kind, values]) => [kind, median(values)]));
      const values = Object.values(medians);
      const ratio = Math.max(...values) / Math.min(...values);
      assert.ok(ratio < MAX_MEDIAN_RATIO, `median times differ too much: ${JSON.stringify(medians)} (ratio ${ratio.toFixed(2)})`);
      // Every kind pays for a real password hash (scrypt, tens of milliseconds), not a quick refusal.
      assert.ok(Math.min(...values) > 10, `medians ${JSON.stringify(medians)}`);
    });

    it('still issues a token for the right password', async () => {
      const ok = await timeAttempt(known.email, known.password);
      assert.equal(ok.status, 200);
    });
  });
}
