import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from '../../src/config/config.ts';
import { createDatabase, type Db } from '../../src/core/db/database.ts';
import { migrateToLatest, migrationNames } from '../../src/core/db/migrate.ts';
import { migrationsOfModules } from '../../src/modules/index.ts';
import { startServer } from '../../src/server.ts';
import { freePort } from '../../scripts/scratch.ts';
import { dialectNamed } from '../support/dialects.ts';
import { openPgSession, withPgDatabase, type PgSession } from '../support/pg-session.ts';
import { writesDuring } from '../support/writes-during.ts';

/**
 * Migrating a large PostgreSQL database (issue 52): the process is alive while it migrates, an index
 * added to a large table is built without holding its writers, and a process killed mid-build leaves a
 * database the next run finishes, with every migration applied once.
 */

const postgres = dialectNamed('postgres');
/** Kysely's migration lock on PostgreSQL (its postgres-adapter): held, it keeps a starting server migrating. */
const KYSELY_MIGRATION_LOCK = '3853314791062309107';
const BIG_ROWS = 1_500_000;
const INDEX = { name: 'big_rows_body_idx', table: 'big_rows', definition: '(body, id)' };

async function getJson(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const answer = await fetch(url);
  return { status: answer.status, body: (await answer.json()) as Record<string, unknown> };
}

/** Where the index stands: absent, valid, or left invalid by an interrupted build. */
async function indexState(client: PgSession, name: string): Promise<'missing' | 'valid' | 'invalid'> {
  const rows = await client.query<{ valid: boolean }>(
    `select i.indisvalid as valid from pg_class c join pg_index i on i.indexrelid = c.oid where c.relname = $1`,
    [name],
  );
  return rows.length === 0 ? 'missing' : rows[0]!.valid ? 'valid' : 'invalid';
}

function runMigrateChild(url: string): { done: Promise<number | null>; kill: () => void } {
  const child = spawn(process.execPath, ['test/support/migrate-child.ts'], {
    env: { ...process.env, DATABASE_URL: url, TEST_ONLINE_INDEXES: JSON.stringify([INDEX]) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const done = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { done, kill: () => child.kill('SIGKILL') };
}

describe('migrating (postgres)', { skip: postgres.skip }, () => {
  const database = withPgDatabase(postgres);

  it('answers /healthz and /readyz "migrating" while migrations wait, then opens the API', async (t) => {
    const holder = await openPgSession(database.url);
    await holder.query(`select pg_advisory_lock(${KYSELY_MIGRATION_LOCK})`);
    const port = await freePort();
    const config = loadConfig({
      NODE_ENV: 'test',
      HOST: '127.0.0.1',
      PORT: String(port),
      DATABASE_URL: database.url,
      DEMO_DATA: 'false',
      LOG_LEVEL: 'silent',
      JWT_SECRET: 'test-secret-test-secret-test-secret-42',
      ADMIN_PASSWORD: 'admin-password-123',
      OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
    });
    const started = performance.now();
    const starting = startServer(config);
    let alive = 0;
    while (performance.now() - started < 10_000) {
      const answer = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined);
      if (answer?.status === 200) {
        alive = performance.now() - started;
        break;
      }
      await sleep(50);
    }
    try {
      // Alive while the migrations cannot even start (the lock is held): the property; the 2 s figure of a
      // real `npm start` is measured apart (docs/OPERATIONS.md §6), not timed here on a shared machine.
      assert.ok(alive > 0, `/healthz never answered while migrating`);
      t.diagnostic(`/healthz answered ${Math.round(alive)} ms after startServer was called`);
      const ready = await getJson(`http://127.0.0.1:${port}/readyz`);
      assert.equal(ready.status, 503);
      assert.equal(ready.body.status, 'migrating');
      assert.ok('migration' in ready.body && typeof ready.body.since === 'string');
      const api = await getJson(`http://127.0.0.1:${port}/api/v2/products`);
      assert.equal(api.status, 503);
      assert.equal((api.body.error as { code: string }).code, 'SERVICE_UNAVAILABLE');
    } finally {
      await holder.query(`select pg_advisory_unlock(${KYSELY_MIGRATION_LOCK})`);
      await holder.end();
    }
    const server = await starting;
    try {
      assert.equal((await getJson(`http://127.0.0.1:${port}/readyz`)).status, 200);
      assert.equal((await getJson(`http://127.0.0.1:${port}/api/v2/products`)).status, 200);
    } finally {
      await server.close();
    }
  });

  it('builds an index added to a large table concurrently: writes to that table go on during the build', async () => {
    await database.client.query(
      `create table big_rows as select g as id, md5(g::text) as body from generate_series(1, ${BIG_ROWS}) g`,
    );
    const db: Db = createDatabase(database.url);
    const writer = writesDuring(database.url, (writes, i) =>
      writes.query(`insert into big_rows values ($1::int, md5($1::int::text))`, [BIG_ROWS + i]),
    );
    const start = performance.now();
    let outcome;
    let written;
    try {
      outcome = await migrateToLatest(db, {
        ...migrationsOfModules,
        '9999-test-online-indexes': { async up() {}, onlineIndexes: [INDEX] },
      });
    } finally {
      written = await writer.stop();
      await db.destroy();
    }
    const took = performance.now() - start;
    const { writes: inserted, slowestMs: slowest } = written;
    assert.deepEqual(outcome.indexesBuilt, [INDEX.name]);
    assert.equal(await indexState(database.client, INDEX.name), 'valid');
    assert.ok(inserted >= 20, `${inserted} rows written during a ${Math.round(took)} ms build`);
    assert.ok(slowest < took / 2, `a write waited ${Math.round(slowest)} ms of a ${Math.round(took)} ms build`);
  });

  it('finishes an index build interrupted by SIGKILL on the next run, every migration applied once', async () => {
    await database.client.query(`drop index if exists ${INDEX.name}`);
    const first = runMigrateChild(database.url);
    // Wait for the build to be under way, then kill the process and its backend (a lost connection).
    let pid: number | undefined;
    for (let waited = 0; waited < 20_000 && pid === undefined; waited += 20) {
      const rows = await database.client.query<{ pid: number }>(
        `select pid from pg_stat_progress_create_index where relid = to_regclass('big_rows')`,
      );
      pid = rows[0]?.pid;
      if (pid === undefined) await sleep(20);
    }
    assert.ok(pid !== undefined, 'the build never started');
    first.kill();
    await database.client.query('select pg_terminate_backend($1)', [pid]);
    await first.done;
    await sleep(200);
    assert.equal(await indexState(database.client, INDEX.name), 'invalid');

    const second = spawn(process.execPath, ['test/support/migrate-child.ts'], {
      env: { ...process.env, DATABASE_URL: database.url, TEST_ONLINE_INDEXES: JSON.stringify([INDEX]) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    second.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    assert.equal(await new Promise((resolve) => second.on('exit', resolve)), 0);
    assert.deepEqual(JSON.parse(output).indexesBuilt, [INDEX.name]);
    assert.equal(await indexState(database.client, INDEX.name), 'valid');
    const rows = await database.client.query<{ name: string; times: string }>(
      `select name, count(*) as times from kysely_migration group by name having count(*) > 1`,
    );
    assert.deepEqual(rows, []);
    const applied = await database.client.query<{ n: number }>(`select count(*)::int as n from kysely_migration`);
    // Core's and the modules' migrations, and the test's own index.
    assert.equal(applied[0]!.n, migrationNames(migrationsOfModules).length + 1);
  });
});
