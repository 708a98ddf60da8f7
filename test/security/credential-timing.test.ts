import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../support/dialects.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { SECURITY_TEST_ENV } from './security-test-env.test-support.ts';

const SAMPLES = 11;
/** Generous on purpose: a shared 2-core machine is noisy. A missing hash check would be ~50× faster. */
const MAX_RATIO = 2;

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) * q)]!;
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

    it('answers an unknown email, a wrong password and a password-less account alike, in similar time', async (context) => {
      const bodies = new Set<string>();
      let last = '';
      // A leak (no hash for unknown emails) is a factor of ~50 and fails every round; a busy machine
      // only adds noise, so a round within the bound suffices (at most three).
      for (let round = 0; round < 3; round++) {
        const times = { unknown: [] as number[], wrong: [] as number[], passwordless: [] as number[] };
        // Interleaved, so drift in machine load hits every kind equally.
        for (let i = 0; i < SAMPLES; i++) {
          for (const [kind, email] of [
            ['unknown', `nobody-${round}-${i}@example.com`],
            ['wrong', known.email],
            ['passwordless', passwordless],
          ] as const) {
            const attempt = await timeAttempt(email, `wrong-password-${i}`);
            assert.equal(attempt.status, 401, attempt.body);
            bodies.add(attempt.body);
            times[kind].push(attempt.ms);
          }
        }
        assert.equal(bodies.size, 1, `one answer for every failure: ${[...bodies].join(' | ')}`);
        // Medians and lower quartiles: load only ever adds time, so the low end shows the work done.
        const stats = Object.fromEntries(
          Object.entries(times).map(([kind, values]) => [
            kind,
            { median: quantile(values, 0.5), low: quantile(values, 0.25) },
          ]),
        );
        const medians = Object.values(stats).map((s) => s.median);
        const lows = Object.values(stats).map((s) => s.low);
        // Every kind pays for a real password hash (scrypt, tens of milliseconds), not a quick refusal.
        assert.ok(Math.min(...lows) > 10, `times ${JSON.stringify(stats)}`);
        const ratio = Math.min(Math.max(...medians) / Math.min(...medians), Math.max(...lows) / Math.min(...lows));
        last = `${JSON.stringify(stats)} (ratio ${ratio.toFixed(2)})`;
        context.diagnostic(`round ${round + 1}: ${last}`);
        if (ratio < MAX_RATIO) return;
      }
      assert.fail(`answer times differ too much in three rounds; last: ${last}`);
    });

    it('still issues a token for the right password', async () => {
      const ok = await timeAttempt(known.email, known.password);
      assert.equal(ok.status, 200);
    });
  });
}
