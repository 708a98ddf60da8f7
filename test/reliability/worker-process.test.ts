import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import type { ChildServer } from '../support/child-server.ts';
import { DATABASE_INDEPENDENT } from '../support/dialects.ts';
import { waitFor } from './harness.test-support.ts';
import { metricOf, startRole, stopRole } from './process-roles.test-support.ts';

const ROOT = new URL('../../', import.meta.url);

/** Runs the CLI to its end (a start refused, `help`). */
function runCli(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, ['src/cli.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', DATABASE_URL: 'sqlite::memory:', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
}

/**
 * A worker process (DECISIONS §16) answers the operator's probes on PORT and nothing else; its role
 * comes from the command (`worker`), `serve --role` or PROCESS_ROLE, and applies to every process of
 * a `WORKERS=N` cluster.
 */
for (const dialect of DATABASE_INDEPENDENT) {
  describe(`the worker process (${dialect.name})`, { skip: dialect.skip }, () => {
    let database: { url: string; drop(): Promise<void> };
    let worker: ChildServer;
    before(async () => {
      database = await dialect.createDatabase();
    });
    after(async () => {
      if (worker?.process.exitCode === null) await stopRole(worker);
      await database?.drop();
    });

    it('`content-service worker` answers /healthz, /readyz and /metrics, and 404s the API, GraphQL, the docs and the front door', async () => {
      worker = await startRole({ DATABASE_URL: database.url }, ['worker']);
      const healthz = await fetch(`${worker.url}/healthz`);
      assert.equal(healthz.status, 200);
      const readyz = await fetch(`${worker.url}/readyz`);
      assert.deepEqual([readyz.status, await readyz.json()], [200, { status: 'ready' }]);
      // The worker's own families: the outbox backlog and the deliveries.
      assert.equal(await metricOf(worker.url, 'webhook_events_behind'), 0);
      assert.notEqual(await metricOf(worker.url, 'webhook_deliveries_pending'), undefined);
      for (const [method, path] of [
        ['GET', '/api/users'],
        ['GET', '/api/v2/products'],
        ['POST', '/api/v2/auth/token'],
        ['POST', '/graphql'],
        ['GET', '/graphiql'],
        ['GET', '/docs'],
        ['GET', '/api/v2/openapi.json'],
        ['GET', '/'],
      ] as const) {
        const answer = await fetch(`${worker.url}${path}`, { method });
        const body = (await answer.json()) as { error?: { code?: string } };
        assert.deepEqual([answer.status, body.error?.code], [404, 'NOT_FOUND'], `${method} ${path}`);
      }
      await waitFor(
        () =>
          worker.lines.some(
            (line) => line.includes('Running the background workers') && line.includes('"role":"worker"'),
          ),
        10_000,
        'the start-up line naming the role',
      );
      assert.ok(
        !worker.lines.some((line) => line.includes('administrator')),
        'the administrator is left to the API processes',
      );
      assert.equal(await stopRole(worker), 0);
    });

    it('PROCESS_ROLE=worker with WORKERS=2 makes every process of the cluster a worker', async () => {
      const cluster = await startRole({ DATABASE_URL: database.url, PROCESS_ROLE: 'worker', WORKERS: '2' }, ['serve']);
      try {
        await waitFor(
          () => cluster.lines.filter((line) => line.includes('Running the background workers')).length === 2,
          60_000,
          'both processes of the cluster',
        );
        assert.ok(!cluster.lines.some((line) => line.includes('Serving ')), 'no process serves the API');
        const answer = await fetch(`${cluster.url}/api/users`, { headers: { connection: 'close' } });
        assert.equal(answer.status, 404);
        assert.equal((await fetch(`${cluster.url}/readyz`)).status, 200);
      } finally {
        assert.equal(await stopRole(cluster), 0);
      }
    });
  });
}

describe('choosing a role', () => {
  it('refuses to start with an unknown PROCESS_ROLE, naming the variable and the roles', () => {
    const run = runCli(['serve'], { PROCESS_ROLE: 'bogus' });
    assert.equal(run.status, 1, run.stderr);
    assert.match(run.stderr, /Invalid configuration: PROCESS_ROLE must be one of all, api, worker \(got "bogus"\)/);
  });

  it('refuses an unknown `serve --role`, naming the option', () => {
    const run = runCli(['serve', '--role', 'bogus']);
    assert.equal(run.status, 2, run.stderr);
    assert.match(run.stderr, /serve --role must be one of all, api, worker/);
  });

  it('lists `worker` and `serve --role` in `content-service help`', () => {
    const run = runCli(['help']);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /^ {2}worker {2,}run only the background workers/m);
    assert.match(run.stdout, /^ {2}serve \[--role R\]/m);
  });
});
