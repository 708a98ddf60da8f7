import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DIALECTS } from '../support/dialects.ts';
import { ADMIN_PASSWORD, call, startProcess, waitFor, type Answer } from './harness.test-support.ts';

/** Fresh starts per database; START_UP_ROUNDS=20 gives the figures of docs/OPERATIONS.md. */
const ROUNDS = Number(process.env.START_UP_ROUNDS ?? 2);

/** The settings `npm start` runs with: shedding at its default, production mode, the demo data set. */
const AS_NPM_START = { NODE_ENV: 'production', OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '', DEMO_DATA: 'true' };

/** The first requests a client sends once the probes pass: a sign-in, a sign-up, a read, readiness. */
function firstRequests(base: string, round: number, tag: string): Promise<Answer>[] {
  return [
    call(base, 'POST', '/api/auth/token', { body: { email: 'admin@example.com', password: ADMIN_PASSWORD } }),
    call(base, 'POST', '/api/users', { body: { name: 'Early', email: `early-${tag}-${round}@example.com` } }),
    call(base, 'GET', '/api/products?limit=5'),
    call(base, 'GET', '/readyz'),
  ];
}

for (const dialect of DIALECTS) {
  describe(`start-up: the first requests after the probes pass (${dialect.name})`, { skip: dialect.skip }, () => {
    it('are never shed as overload: the lag of start-up itself does not count (shedding on, as npm start runs)', async (t) => {
      const figures = { starts: 0, requests: 0, shed: 0, other: new Map<string, number>() };
      const unexpected: string[] = [];
      for (let round = 0; round < ROUNDS; round += 1) {
        const database = await dialect.createDatabase();
        try {
          // Listening comes before migrating: the probes are sent as soon as the port is open.
          const server = await startProcess({ ...AS_NPM_START, DATABASE_URL: database.url }, { untilReady: false });
          // At once, as a supervisor or a script does: liveness first, then the requests.
          await waitFor(async () => (await call(server.url, 'GET', '/healthz')).status === 200, 30_000, '/healthz');
          const afterLiveness = await Promise.all(firstRequests(server.url, round, `${dialect.name}-l`));
          await waitFor(async () => (await call(server.url, 'GET', '/readyz')).status === 200, 30_000, '/readyz');
          const afterReadiness = await Promise.all(firstRequests(server.url, round, `${dialect.name}-r`));
          server.process.kill('SIGKILL');
          await server.exited;

          // Alive before ready (DECISIONS §1): until migrated, requests are refused as "migrating", never as overload.
          const migrating = (answer: Answer) => answer.status === 503 && /migrating/.test(JSON.stringify(answer.body));
          const earlyStatuses = afterLiveness.map((answer) => (migrating(answer) ? 'migrating' : answer.status));
          const answers = [...afterLiveness.filter((answer) => !migrating(answer)), ...afterReadiness];
          figures.starts += 1;
          figures.requests += answers.length;
          for (const answer of answers) {
            if (answer.status === 503) figures.shed += 1;
            const key = String(answer.status || answer.error);
            figures.other.set(key, (figures.other.get(key) ?? 0) + 1);
          }
          const expected = ['200', '201', '200', '200'];
          if (earlyStatuses.some((status, index) => status !== 'migrating' && String(status) !== expected[index]))
            unexpected.push(`start ${round} after liveness: ${earlyStatuses.join(',')}`);
          const statuses = afterReadiness.map((answer) => answer.status).join(',');
          if (statuses !== '200,201,200,200')
            unexpected.push(`start ${round}: ${statuses} ${JSON.stringify(answers.map((answer) => answer.body))}`);
        } finally {
          await database.drop();
        }
      }
      t.diagnostic(
        `${figures.starts} fresh starts, ${figures.requests} first requests, ${figures.shed} shed; statuses ${JSON.stringify([...figures.other])}`,
      );
      assert.equal(figures.shed, 0);
      assert.deepEqual(unexpected, []);
    });
  });
}
