import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { serverArgs } from '../../bench/suite/server-command.ts';
import { DIALECTS, dialectNamed } from '../support/dialects.ts';
import { untilMigrated } from '../support/child-server.ts';
import { BASE_ENV, call, signUpUsers, slowPost, waitFor } from './harness.test-support.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SHUTDOWN_TIMEOUT_MS = 5000;

/** A documented start command (`npm start` unless told) in a process group of its own, as a supervisor runs it; resolves once it listens. */
async function npmStart(env: Record<string, string>, command: readonly string[] = ['start']) {
  const npm = spawn('npm', command, {
    cwd: ROOT,
    detached: true,
    env: { ...process.env, ...BASE_ENV, PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const exited = once(npm, 'exit').then(([code, signal]) => ({
    code: code as number | null,
    signal: signal as string | null,
  }));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start did not listen:\n${lines.join('\n')}`)), 90_000);
    for (const stream of [npm.stdout, npm.stderr]) {
      createInterface({ input: stream }).on('line', (line) => {
        lines.push(line);
        const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(line);
        if (match?.[1]) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      });
    }
    void exited.then(({ code }) => reject(new Error(`npm start exited with ${code}:\n${lines.join('\n')}`)));
  });
  // It listens before it migrates: the API opens once `/readyz` stops saying "migrating".
  await untilMigrated(url, exited, lines);
  return { pid: npm.pid!, url, lines, exited };
}

/** Whether any process of the group is left (npm, a shell, node). */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

for (const dialect of DIALECTS) {
  describe(`npm start under a supervisor (${dialect.name})`, { skip: dialect.skip }, () => {
    it("stops, whole process tree, on SIGTERM to npm's pid alone: in-flight request answered, completion logged", async () => {
      const database = await dialect.createDatabase();
      // `debug` logs each request's arrival (core/http/access-log.ts).
      const server = await npmStart({
        DATABASE_URL: database.url,
        LOG_LEVEL: 'debug',
        SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
      });
      try {
        const [author] = await signUpUsers(server.url, 1, `npm-${dialect.name}-${Date.now()}`);
        const inFlight = slowPost(server.url, `/api/users/${author!.id}/posts`, author!.token, {
          title: 'In flight',
          content: 'Finished after SIGTERM.',
        });
        await waitFor(
          () => server.lines.some((line) => line.includes(inFlight.id)),
          30_000,
          'the slow request to be accepted',
        );

        const signalledAt = Date.now();
        process.kill(server.pid, 'SIGTERM');
        await sleep(300);
        inFlight.finish();
        const answer = await inFlight.answer;
        assert.equal(answer.status, 201, answer.text);

        await waitFor(() => !groupAlive(server.pid), SHUTDOWN_TIMEOUT_MS, 'every process of npm start to exit');
        const exitMs = Date.now() - signalledAt;
        assert.ok(exitMs < SHUTDOWN_TIMEOUT_MS, `the tree exited ${exitMs} ms after the signal`);
        assert.equal((await server.exited).code, 0, server.lines.slice(-5).join('\n'));
        assert.ok(
          server.lines.some((line) => line.includes('Shutdown complete after SIGTERM')),
          server.lines.slice(-5).join('\n'),
        );
        assert.equal(
          (await call(server.url, 'GET', '/healthz', { timeoutMs: 2000 })).status,
          0,
          'nothing answers on the port any more',
        );
      } finally {
        if (groupAlive(server.pid)) process.kill(-server.pid, 'SIGKILL');
        await database.drop();
      }
    });
  });
}

/** The other documented start commands (README "Command line"): each stops, whole tree, on SIGTERM to npm as `npm start` does. */
const START_COMMANDS: ReadonlyArray<readonly string[]> = [
  ['run', 'cli', '--', 'serve', '--role', 'api'],
  ['run', 'cli', '--', 'serve'],
  ['run', 'cli', '--', 'worker'],
];
describe('every documented start command under a supervisor (sqlite)', () => {
  for (const command of START_COMMANDS) {
    it(`\`npm ${command.join(' ')}\` stops, whole process tree, on SIGTERM to npm's pid alone`, async () => {
      const database = await dialectNamed('sqlite').createDatabase();
      const server = await npmStart(
        { DATABASE_URL: database.url, SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS) },
        command,
      );
      try {
        assert.equal((await call(server.url, 'GET', '/healthz', { timeoutMs: 5000 })).status, 200);
        process.kill(server.pid, 'SIGTERM');
        await waitFor(() => !groupAlive(server.pid), SHUTDOWN_TIMEOUT_MS, 'every process of the command to exit');
        assert.ok(
          server.lines.some((line) => line.includes('Shutdown complete after SIGTERM')),
          server.lines.slice(-5).join('\n'),
        );
      } finally {
        if (groupAlive(server.pid)) process.kill(-server.pid, 'SIGKILL');
        await database.drop();
      }
    });
  }
});

describe('the command-line entry', () => {
  const pkg = JSON.parse(readFileSync(`${ROOT}/package.json`, 'utf8')) as {
    bin: Record<string, string>;
    scripts: Record<string, string>;
  };

  it('is bin/content-service.js for `bin` and every script that runs the CLI; start and cli exec node so signals reach it', () => {
    assert.equal(pkg.bin['content-service'], 'bin/content-service.js');
    for (const name of ['start', 'dev', 'cli', 'db:migrate', 'seed'])
      assert.match(pkg.scripts[name]!, /\bbin\/content-service\.js\b/, name);
    for (const name of ['start', 'cli'])
      assert.match(pkg.scripts[name]!, /^(?:[A-Z_][A-Z0-9_]*=\S+ )*exec node /, name);
    const usage = spawnSync(process.execPath, ['bin/content-service.js', 'help'], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(usage.status, 0, usage.stderr);
    assert.match(usage.stdout, /^Usage: content-service/);
  });

  it('starts the server with the V8 memory settings the README measures, and a container may override its heap limit', () => {
    // Without them the peak RSS of the benchmark's loads was 280-330 MB instead of under 200 (bench/RESULTS.md).
    // The start script as the benchmarks and tools read it (bench/suite/server-command.ts).
    const flags = serverArgs(ROOT).filter((arg) => arg.startsWith('--'));
    for (const flag of ['--max-semi-space-size=8', '--no-allocation-site-pretenuring', '--max-old-space-size=1024']) {
      assert.ok(flags.includes(flag), `${flag} in ${pkg.scripts.start}`);
    }
    const limitOf = (env: NodeJS.ProcessEnv) => {
      const run = spawnSync(
        process.execPath,
        [...flags, '-p', "require('node:v8').getHeapStatistics().heap_size_limit"],
        { env, encoding: 'utf8' },
      );
      assert.equal(run.status, 0, run.stderr);
      return Number(run.stdout) / 2 ** 20;
    };
    const env = { ...process.env, NODE_OPTIONS: '' };
    // The old generation's 1 GB plus the young generation's share (1,048 MB with an 8 MB half; V8's own default here: ~4 GB).
    const limit = limitOf(env);
    assert.ok(limit >= 1024 && limit < 1100, String(limit));
    // OPERATIONS.md §0: in a container, NODE_OPTIONS sizes the heap from the memory available instead,
    // over the start script's flag (whatever the machine's memory, 1% of it is not exactly 1 GB).
    assert.notEqual(limitOf({ ...env, NODE_OPTIONS: '--max-old-space-size-percentage=1' }), limit);
  });

  const older = ['/usr/bin/node', '/usr/local/bin/node'].find((path) => {
    if (!existsSync(path)) return false;
    const version = spawnSync(path, ['--version'], { encoding: 'utf8' }).stdout.trim();
    return Number(/^v(\d+)/.exec(version)?.[1] ?? 99) < 24;
  });
  it(
    'stops an older Node with one clear line instead of ERR_UNKNOWN_FILE_EXTENSION',
    { skip: older ? false : 'no Node older than 24 on this machine' },
    () => {
      const result = spawnSync(older!, ['bin/content-service.js', 'serve'], { cwd: ROOT, encoding: 'utf8' });
      assert.equal(result.status, 1);
      const lines = result.stderr.split('\n').filter((line) => line.trim() !== '');
      assert.equal(lines.length, 1, result.stderr);
      assert.match(lines[0]!, /needs Node 24 or newer; this is Node 2?\d\./);
      assert.equal(result.stdout, '');
    },
  );
});
