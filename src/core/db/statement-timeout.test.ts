import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { dialectNamed, type TestDialect } from '../../../test/support/dialects.ts';
import { openPgSession } from '../../../test/support/pg-session.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';
import { createDatabase } from './database.ts';
import { migrateToLatest } from './migrate.ts';

const postgres = dialectNamed('postgres');

/** What a client must never see in an answer: the database's own words, or SQL. */
const DATABASE_TEXT = /statement timeout|canceling statement|57014|\bselect\b|"users"|postgres|pg_/i;

/** Without a timeout the request would wait as long as the lock: the lock is let go by then, so a test of old code fails, not hangs. */
const LOCK_HELD_AT_MOST_MS = 6000;

/**
 * While another session holds `users` in ACCESS EXCLUSIVE mode (let go after LOCK_HELD_AT_MOST_MS at the
 * latest), lists the users: the answer must come quickly as a 503 in the envelope, and /readyz stay 200.
 * Afterwards the same list answers 200.
 */
async function listWhileUsersLocked(t: TestServer, message: RegExp): Promise<void> {
  const list = () => t.request('GET', '/api/v2/users', { token: t.adminToken });
  assert.equal((await list()).status, 200);

  const locker = await openPgSession(t.config.DATABASE_URL);
  let released = false;
  let letGo: NodeJS.Timeout | undefined;
  const release = async () => {
    if (released) return;
    released = true;
    await locker.query('rollback');
    await locker.end();
  };
  try {
    await locker.query('begin');
    await locker.query('lock table users in access exclusive mode');
    letGo = setTimeout(() => void release(), LOCK_HELD_AT_MOST_MS);

    const started = Date.now();
    const during = await list();
    const took = Date.now() - started;
    assert.equal(during.status, 503, during.text);
    assert.ok(took < 3000, `answered in ${took} ms, not held for as long as the lock`);
    assert.equal(during.body.error.code, 'SERVICE_UNAVAILABLE');
    assert.match(during.body.error.message, message);
    assert.equal(during.headers.get('retry-after'), '5');
    assert.doesNotMatch(during.text, DATABASE_TEXT);

    // One statement running long is not the database being gone: readiness stays.
    assert.equal((await t.request('GET', '/readyz')).status, 200);
  } finally {
    clearTimeout(letGo);
    await release();
  }

  const afterwards = await list();
  assert.equal(afterwards.status, 200, afterwards.text);
  assert.ok(Array.isArray(afterwards.body.data));
  assert.equal((await t.request('GET', '/readyz')).status, 200);
}

/**
 * DECISIONS §13, issue 51: DATABASE_STATEMENT_TIMEOUT_MS bounds every statement a request runs. A
 * statement that waits past it (here on a lock another session holds) ends the request with a clear
 * 503 in the envelope, quickly, instead of holding it (and a pool connection) for as long as the lock
 * lasts; it is not an outage, and the migrations are not bound by it.
 */
describe('PostgreSQL statement timeout', { skip: postgres.skip }, () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer(postgres, { DATABASE_STATEMENT_TIMEOUT_MS: '300' });
  });
  after(async () => {
    await t?.close();
  });

  it('ends a request whose statement waits on a lock with 503 in the envelope, not a hung request', async () => {
    await listWhileUsersLocked(t, /took too long/);
  });

  it("sets the timeout on every connection of the server's pool", async () => {
    const rows = await sql<{ statement_timeout: string }>`show statement_timeout`.execute(t.server.db);
    assert.equal(rows.rows[0]?.statement_timeout, '300ms');
  });
});

/** docs/OPERATIONS.md §2 suggests a `lock_timeout` on the role; its error (55P03) is answered as the statement timeout's. */
describe('PostgreSQL lock_timeout set by the operator', { skip: postgres.skip }, () => {
  let t: TestServer;
  before(async () => {
    const withLockTimeout: TestDialect = {
      ...postgres,
      async createDatabase() {
        const database = await postgres.createDatabase();
        const session = await openPgSession(database.url);
        try {
          await session.query(`alter database "${new URL(database.url).pathname.slice(1)}" set lock_timeout = '200ms'`);
        } finally {
          await session.end();
        }
        return database;
      },
    };
    t = await startTestServer(withLockTimeout, { DATABASE_STATEMENT_TIMEOUT_MS: '0' });
  });
  after(async () => {
    await t?.close();
  });

  it('ends a request whose statement waits on a lock past lock_timeout with 503, not 500', async () => {
    const rows = await sql<{ lock_timeout: string }>`show lock_timeout`.execute(t.server.db);
    assert.equal(rows.rows[0]?.lock_timeout, '200ms');
    await listWhileUsersLocked(t, /took too long/);
  });
});

describe('PostgreSQL migrations and the statement timeout', { skip: postgres.skip }, () => {
  let database: { url: string; drop(): Promise<void> };
  before(async () => {
    database = await postgres.createDatabase();
  });
  after(async () => {
    await database?.drop();
  });

  it('runs migrations without the timeout, and gives the connection back with it', async () => {
    // One connection, so the check after the migrations reads the very session they ran on.
    const db = createDatabase(database.url, { poolSize: 1, statementTimeoutMs: 100 });
    try {
      const outcome = await migrateToLatest(db, {
        '9999-slow-migration': {
          async up(migrating: Kysely<unknown>) {
            await sql`select pg_sleep(0.5)`.execute(migrating);
          },
        },
      });
      assert.ok(outcome.applied.includes('0001-initial-schema'));
      assert.ok(outcome.applied.includes('9999-slow-migration'), 'a migration longer than the timeout was applied');

      const setting = await sql<{ statement_timeout: string }>`show statement_timeout`.execute(db);
      assert.equal(setting.rows[0]?.statement_timeout, '100ms', 'the pool connection has its timeout back');
      await assert.rejects(sql`select pg_sleep(0.5)`.execute(db), { code: '57014' });
    } finally {
      await db.destroy();
    }
  });
});
