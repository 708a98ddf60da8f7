import assert from 'node:assert/strict';
import { execFileSync, spawn as spawnProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { slowPost, waitFor } from '../test/reliability/harness.test-support.ts';
import { checkFetched } from '../test/support/checked-answer.ts';
import { spawnServer as spawn, type ChildServer } from '../test/support/child-server.ts';
import { DIALECTS } from '../test/support/dialects.ts';
import { loadConfig } from './config/config.ts';
import { describeDatabase, startupMessage } from './server.ts';

const running = new Set<ChildServer>();
/** Spawns a server that is killed after the tests even when an assertion fails midway. */
async function spawnServer(env: Record<string, string>): Promise<ChildServer> {
  const server = await spawn(env);
  running.add(server);
  void server.exited.then(() => running.delete(server));
  return server;
}
after(() => {
  for (const server of running) server.process.kill('SIGKILL');
});

const SECRET = 'process-test-secret-process-test-secret';

for (const dialect of DIALECTS) {
  describe(`the server process (${dialect.name})`, { skip: dialect.skip }, () => {
    it('starts on a brand-new database with demo data and a generated admin password printed once, and restarts idempotently', async () => {
      const database = await dialect.createDatabase();
      try {
        const env = { DATABASE_URL: database.url, JWT_SECRET: SECRET };
        const first = await spawnServer(env);
        const anonymous = await checkFetched('GET', await fetch(`${first.url}/api/users`));
        assert.equal(anonymous.status, 401);
        const generated = first.lines.filter((line) => line.includes('generated password'));
        assert.equal(generated.length, 1);
        const password = /generated password: (\S+)/.exec(generated[0]!)?.[1];
        const tokenResponse = await checkFetched(
          'POST',
          await fetch(`${first.url}/api/auth/token`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ email: 'admin@example.com', password }),
          }),
        );
        assert.equal(tokenResponse.status, 200);
        const { access_token } = tokenResponse.body as { access_token: string };
        const users = (
          await checkFetched(
            'GET',
            await fetch(`${first.url}/api/users`, { headers: { authorization: `Bearer ${access_token}` } }),
          )
        ).body as {
          pagination: { total: number };
        };
        assert.ok(users.pagination.total >= 4, 'the demo users are there');
        assert.ok(first.lines.some((line) => line.includes('demo data')));
        // The start-up line: the database, where everything is, how to sign in.
        const startup = first.lines
          .filter((line) => line.startsWith('{'))
          .map((line) => JSON.parse(line) as { msg?: string; database?: string })
          .find((line) => line.msg?.startsWith('Serving '));
        assert.ok(startup, 'a start-up line');
        assert.equal(startup.database, dialect.name);
        for (const part of [
          `on ${dialect.name} `,
          `${first.url}/api `,
          `${first.url}/docs`,
          `${first.url}/graphiql`,
          `POST ${first.url}/api/auth/token`,
          'admin@example.com',
          'alice@example.com',
          'demo-password',
        ]) {
          assert.ok(startup.msg!.includes(part), `${part} in ${startup.msg}`);
        }
        assert.ok(!startup.msg!.includes(password!), 'never the admin password');
        first.process.kill('SIGTERM');
        assert.equal(await first.exited, 0);

        const second = await spawnServer(env);
        assert.ok(!second.lines.some((line) => line.includes('Applied migrations')));
        assert.ok(!second.lines.some((line) => line.includes('generated password')));
        assert.ok(!second.lines.some((line) => line.includes('demo data')));
        const again = (
          await checkFetched(
            'GET',
            await fetch(`${second.url}/api/users`, { headers: { authorization: `Bearer ${access_token}` } }),
          )
        ).body as {
          pagination: { total: number };
        };
        assert.equal(again.pagination.total, users.pagination.total, 'no demo data twice');
        second.process.kill('SIGTERM');
        assert.equal(await second.exited, 0);
      } finally {
        await database.drop();
      }
    });

    it('completes an in-flight request on SIGTERM, refuses new connections and exits cleanly', async () => {
      const database = await dialect.createDatabase();
      try {
        // `debug` logs each request's arrival (core/http/access-log.ts): the slow request is in flight once
        // its id is logged. A fixed 200 ms was not always enough on a loaded machine: the server had not yet
        // accepted it when SIGTERM came, and the client saw its connection hang up (a CI run at load 7).
        const server = await spawnServer({
          DATABASE_URL: database.url,
          JWT_SECRET: SECRET,
          DEMO_DATA: 'false',
          LOG_LEVEL: 'debug',
        });
        const inFlight = slowPost(server.url, '/api/users', undefined, {
          name: 'Slow Sender',
          email: 'slow@example.com',
        });
        await waitFor(
          () => server.lines.some((line) => line.includes(inFlight.id)),
          30_000,
          'the slow request to be accepted',
        );
        server.process.kill('SIGTERM');
        // A new connection is refused once the server has stopped listening (while it keeps the one in flight).
        await waitFor(
          () =>
            fetch(`${server.url}/healthz`).then(
              () => false,
              () => true,
            ),
          30_000,
          'a new connection to be refused while shutting down',
        );
        await sleep(150);
        inFlight.finish();
        const result = await inFlight.answer;
        assert.equal(result.status, 201, result.text);
        const started = Date.now();
        assert.equal(await server.exited, 0);
        assert.ok(Date.now() - started < 10_000);
      } finally {
        await database.drop();
      }
    });

    it('stops cleanly (exit 0) on a SIGTERM that arrives during start-up, once the server serves', async () => {
      const database = await dialect.createDatabase();
      try {
        // Node's default for SIGTERM (the handler was installed only after listening) killed a server that a
        // supervisor stopped while it started: exit by signal, not 0 (test/reliability/backup-restore, load 8).
        const child = spawnProcess(process.execPath, ['src/cli.ts', 'serve'], {
          env: { ...process.env, PORT: '0', LOG_LEVEL: 'info', DATABASE_URL: database.url, JWT_SECRET: SECRET },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        const exited = once(child, 'exit');
        const lines: string[] = [];
        createInterface({ input: child.stdout! }).on('line', (line) => lines.push(line));
        // The first start-up line (the migrations of the new database) comes before the app is built.
        await waitFor(() => lines.length > 0, 60_000, 'the first start-up line');
        child.kill('SIGTERM');
        const [code, signal] = await exited;
        assert.deepEqual({ code, signal }, { code: 0, signal: null }, lines.join('\n'));
        assert.ok(
          lines.some((line) => line.includes('Shutdown complete after SIGTERM')),
          lines.join('\n'),
        );
      } finally {
        await database.drop();
      }
    });

    it('runs WORKERS=2 processes on one port, prepares the database once, and stops them all on SIGTERM', async () => {
      const database = await dialect.createDatabase();
      try {
        const server = await spawnServer({ DATABASE_URL: database.url, JWT_SECRET: SECRET, WORKERS: '2' });
        const listening = () => server.lines.filter((line) => line.includes('Server listening')).length;
        for (let i = 0; i < 100 && listening() < 2; i += 1) await sleep(100);
        assert.equal(listening(), 2);
        assert.equal(server.lines.filter((line) => line.includes('Applied migrations')).length, 1);
        assert.equal(server.lines.filter((line) => line.includes('generated password')).length, 1);
        const statuses = await Promise.all(
          Array.from({ length: 20 }, async () => (await fetch(`${server.url}/healthz`)).status),
        );
        assert.ok(statuses.every((status) => status === 200));
        server.process.kill('SIGTERM');
        assert.equal(await server.exited, 0);
      } finally {
        await database.drop();
      }
    });

    it('`migrate` applies migrations once and `token --user` prints a token the server accepts', async () => {
      const database = await dialect.createDatabase();
      try {
        const env = { ...process.env, DATABASE_URL: database.url, JWT_SECRET: SECRET, LOG_LEVEL: 'silent' };
        const run = (...args: string[]) =>
          execFileSync(process.execPath, ['src/cli.ts', ...args], { env, encoding: 'utf8' }).trim();
        assert.match(run('migrate'), /Applied: 0001-initial-schema/);
        assert.equal(run('migrate'), 'Database is up to date');
        const server = await spawnServer({ DATABASE_URL: database.url, JWT_SECRET: SECRET, DEMO_DATA: 'false' });
        const token = run('token', '--user', '1');
        const res = await checkFetched(
          'GET',
          await fetch(`${server.url}/api/users/1`, { headers: { authorization: `Bearer ${token}` } }),
        );
        assert.equal(res.status, 200);
        assert.equal((res.body as { role: string }).role, 'admin');
        server.process.kill('SIGTERM');
        await server.exited;
      } finally {
        await database.drop();
      }
    });
  });
}

describe('the start-up line', () => {
  it('names the database without credentials', () => {
    assert.equal(
      describeDatabase('postgres://app:s3cret@db.internal:5432/content'),
      'postgres db.internal:5432/content',
    );
    assert.equal(describeDatabase('sqlite:./data/content.db'), 'sqlite ./data/content.db');
    assert.equal(describeDatabase('sqlite::memory:'), 'sqlite :memory:');
  });

  it('leaves GraphiQL out when it is off, names the admin-token rule for /metrics in production, and demo accounts only when present', () => {
    const production = loadConfig({
      NODE_ENV: 'production',
      JWT_SECRET: SECRET,
      ADMIN_PASSWORD: 'a-secret-admin-password',
      DATABASE_URL: 'sqlite::memory:',
    });
    const line = startupMessage(production, 'http://127.0.0.1:3000', undefined, []);
    assert.doesNotMatch(line, /graphiql|demo|a-secret-admin-password/i);
    assert.match(line, /\/metrics \(admin token\)/);
    assert.match(line, /POST http:\/\/127\.0\.0\.1:3000\/api\/auth\/token/);
    assert.match(line, /password from ADMIN_PASSWORD/);
    const separate = startupMessage(production, 'http://127.0.0.1:3000', 'http://127.0.0.1:9100', []);
    assert.match(separate, /metrics http:\/\/127\.0\.0\.1:9100\/metrics;/);
  });
});
