import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { checkFetched } from '../../test/support/checked-answer.ts';
import { spawnServer, type ChildServer } from '../../test/support/child-server.ts';
import { randomBytes } from 'node:crypto';
import { dialectNamed } from '../../test/support/dialects.ts';
import { openPgSession } from '../../test/support/pg-session.ts';
import { createDatabase } from '../core/db/database.ts';
import { migrateToLatest } from '../core/db/migrate.ts';
import { migrationsOfModules } from '../modules/index.ts';
import { ConfigError, loadConfig } from './config.ts';
import {
  developmentSecretFileOf,
  developmentSecretWarning,
  withDatabaseSecret,
  withDevelopmentSecret,
} from './development-secret.ts';

const directories: string[] = [];
function freshDirectory(): string {
  const dir = mkdtempSync(join(tmpdir(), 'content-service-secret-'));
  directories.push(dir);
  return dir;
}
after(() => {
  for (const dir of directories) rmSync(dir, { recursive: true, force: true });
});

const modeOf = (file: string) => statSync(file).mode & 0o777;

describe('the development JWT secret', () => {
  it('is generated on first use, kept beside the SQLite database readable by its owner only, and reused', () => {
    const database = join(freshDirectory(), 'nested', 'content.db');
    const config = loadConfig({ DATABASE_URL: `sqlite:${database}` });
    const first = withDevelopmentSecret(config);
    assert.equal(first.jwtSecretFile, `${database}.jwt-secret`);
    assert.equal(modeOf(first.jwtSecretFile), 0o600);
    assert.equal(readFileSync(first.jwtSecretFile, 'utf8').trim(), first.jwtSecret);
    assert.ok(first.jwtSecret.length >= 32);
    // The next start (a fresh loadConfig, whose own secret is random) signs with the kept one.
    const second = withDevelopmentSecret(loadConfig({ DATABASE_URL: `sqlite:${database}` }));
    assert.equal(second.jwtSecret, first.jwtSecret);
    assert.match(developmentSecretWarning(second)!, /kept in .*content\.db\.jwt-secret/);
  });

  it('is random per process for sqlite::memory: (and for PostgreSQL until its database is read), with a warning that says so', () => {
    for (const url of ['sqlite::memory:', 'postgres://postgres@127.0.0.1:5432/content']) {
      const a = withDevelopmentSecret(loadConfig({ DATABASE_URL: url }));
      const b = withDevelopmentSecret(loadConfig({ DATABASE_URL: url }));
      assert.equal(developmentSecretFileOf(url), undefined);
      assert.equal(a.jwtSecretFile, undefined);
      assert.notEqual(a.jwtSecret, b.jwtSecret);
      assert.match(developmentSecretWarning(a)!, /random per-process secret/);
    }
  });

  it('leaves JWT_SECRET alone, keeps nothing for it, and production without a key still refuses to start', () => {
    const database = join(freshDirectory(), 'content.db');
    const secret = 'an-operator-chosen-secret-of-32-chars!';
    const config = withDevelopmentSecret(loadConfig({ DATABASE_URL: `sqlite:${database}`, JWT_SECRET: secret }));
    assert.equal(config.jwtSecret, secret);
    assert.equal(config.jwtSecretFile, undefined);
    assert.equal(developmentSecretWarning(config), undefined);
    assert.throws(() => statSync(`${database}.jwt-secret`), { code: 'ENOENT' });
    assert.throws(() => loadConfig({ NODE_ENV: 'production', DATABASE_URL: `sqlite:${database}` }), ConfigError);
  });

  it('narrows a widened file back to its owner, and names the fix for a file that holds no usable secret', () => {
    const database = join(freshDirectory(), 'content.db');
    const file = `${database}.jwt-secret`;
    writeFileSync(file, `${'k'.repeat(43)}\n`);
    chmodSync(file, 0o644);
    assert.equal(withDevelopmentSecret(loadConfig({ DATABASE_URL: `sqlite:${database}` })).jwtSecret, 'k'.repeat(43));
    assert.equal(modeOf(file), 0o600);
    writeFileSync(file, 'short\n');
    assert.throws(() => withDevelopmentSecret(loadConfig({ DATABASE_URL: `sqlite:${database}` })), {
      name: 'Error',
      message: /shorter than 32 characters: delete the file .* or set JWT_SECRET/,
    });
  });
});

describe('the server process without JWT_SECRET', () => {
  const running = new Set<ChildServer>();
  after(() => {
    for (const server of running) server.process.kill('SIGKILL');
  });
  async function start(database: string): Promise<ChildServer> {
    const server = await spawnServer({
      NODE_ENV: 'development',
      DATABASE_URL: `sqlite:${database}`,
      JWT_SECRET: '',
      JWT_JWKS_URL: '',
      JWT_PUBLIC_KEY: '',
      DEMO_DATA: 'false',
      ADMIN_PASSWORD: 'first-contact-password',
    });
    running.add(server);
    return server;
  }
  async function stop(server: ChildServer): Promise<void> {
    server.process.kill('SIGTERM');
    assert.equal(await server.exited, 0);
    running.delete(server);
  }

  it('accepts a token issued before a restart on the same database, whose secret file is owner-only', async () => {
    const database = join(freshDirectory(), 'content.db');
    const first = await start(database);
    const issued = await checkFetched(
      'POST',
      await fetch(`${first.url}/api/v2/auth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'admin@example.com', password: 'first-contact-password' }),
      }),
    );
    assert.equal(issued.status, 200);
    const token = (issued.body as { access_token: string }).access_token;
    assert.ok(
      first.lines.some((line) => line.includes('content.db.jwt-secret')),
      'the warning names the file',
    );
    await stop(first);
    assert.equal(modeOf(`${database}.jwt-secret`), 0o600);

    const second = await start(database);
    const me = await checkFetched(
      'GET',
      await fetch(`${second.url}/api/v2/users/1`, { headers: { authorization: `Bearer ${token}` } }),
    );
    assert.equal(me.status, 200, me.text);
    assert.equal((me.body as { email: string }).email, 'admin@example.com');
    // `cli token` signs with the same kept secret.
    const env = { ...process.env, DATABASE_URL: `sqlite:${database}`, JWT_SECRET: '', LOG_LEVEL: 'silent' };
    const minted = execFileSync(process.execPath, ['src/cli.ts', 'token', '--user', '1'], { env, encoding: 'utf8' });
    const read = await fetch(`${second.url}/api/v2/users/1`, { headers: { authorization: `Bearer ${minted.trim()}` } });
    assert.equal(read.status, 200);
    await stop(second);
  });
});

describe('the development JWT secret on PostgreSQL', { skip: dialectNamed('postgres').skip }, () => {
  it('is kept in the database: every process of one DATABASE_URL signs alike, and a role without grants cannot read it', async () => {
    const database = await dialectNamed('postgres').createDatabase();
    const db = createDatabase(database.url, { poolSize: 2 });
    const stranger = `cs_stranger_${process.pid}_${randomBytes(3).toString('hex')}`;
    const admin = await openPgSession(database.url);
    try {
      await migrateToLatest(db, migrationsOfModules);
      // Two processes starting together, each with its own per-process candidate: one secret wins for both.
      const [a, b] = await Promise.all([
        withDatabaseSecret(loadConfig({ DATABASE_URL: database.url }), db),
        withDatabaseSecret(loadConfig({ DATABASE_URL: database.url }), db),
      ]);
      assert.equal(a.jwtSecret, b.jwtSecret);
      assert.equal(a.jwtSecretInDatabase, true);
      assert.match(developmentSecretWarning(a)!, /kept in the database/);
      // A restart reads it back.
      assert.equal((await withDatabaseSecret(loadConfig({ DATABASE_URL: database.url }), db)).jwtSecret, a.jwtSecret);
      // JWT_SECRET wins, and production never keeps one.
      const secret = 's'.repeat(40);
      assert.equal(
        (await withDatabaseSecret(loadConfig({ DATABASE_URL: database.url, JWT_SECRET: secret }), db)).jwtSecret,
        secret,
      );
      await admin.query(`CREATE ROLE ${stranger} LOGIN`);
      await admin.query(`GRANT CONNECT ON DATABASE ${new URL(database.url).pathname.slice(1)} TO ${stranger}`);
      const url = new URL(database.url);
      url.username = stranger;
      const other = await openPgSession(url.toString());
      try {
        await assert.rejects(other.query('SELECT secret FROM development_secret'), /permission denied/);
      } finally {
        await other.end();
      }
    } finally {
      await db.destroy();
      await admin.end();
      await database.drop();
      const cleanup = await openPgSession(process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
      await cleanup.query(`DROP ROLE IF EXISTS ${stranger}`).finally(() => cleanup.end());
    }
  });
});
