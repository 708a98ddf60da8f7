import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { observeQueries } from '../../src/core/db/database.ts';
import { dialectNamed, type TestDialect } from '../support/dialects.ts';
import { openPgSession } from '../support/pg-session.ts';
import { startTestServer, type TestResponse, type TestServer } from '../support/test-server.ts';

/**
 * DECISIONS §13, issue 51: on PostgreSQL the service needs no superuser. This suite sets up the two
 * roles of docs/OPERATIONS.md §2 ("Roles: no superuser") with the SQL printed there (its three blocks,
 * under names of its own), migrates as the owner with `content-service migrate`, and runs the real
 * server as the application role, which may only read and write rows, with the statement timeout on.
 */

const postgres = dialectNamed('postgres');
const ADMIN_URL = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const ROOT = new URL('../../', import.meta.url);
const run = promisify(execFile);

const suffix = `${process.pid}_${randomBytes(4).toString('hex')}`;
const OWNER = `cs_owner_${suffix}`;
const APP = `cs_app_${suffix}`;
const DATABASE = `cs_least_${suffix}`;

/** The documented SQL: the ```sql blocks of OPERATIONS.md that start `-- 1.`, `-- 2.`, `-- 3.`, as statements. */
function documentedSteps(): Map<string, string[]> {
  const doc = readFileSync(new URL('docs/OPERATIONS.md', ROOT), 'utf8');
  const steps = new Map<string, string[]>();
  for (const [, block] of doc.matchAll(/```sql\n([\s\S]*?)```/g)) {
    const step = /^-- (\d)\. /.exec(block!)?.[1];
    if (!step) continue;
    const named = block!
      .replace(/\bcontent_owner\b/g, OWNER)
      .replace(/\bcontent_app\b/g, APP)
      .replace(/\bcontent\b/g, DATABASE);
    const statements = named
      .replace(/--.*$/gm, '')
      .split(';')
      .map((statement) => statement.trim())
      .filter(Boolean);
    steps.set(step, statements);
  }
  return steps;
}

/** The URL of `database` on the test server as `role` (trust authentication: no password needed). */
function urlAs(role: string, database: string): string {
  const url = new URL(ADMIN_URL);
  url.username = role;
  url.password = '';
  url.pathname = `/${database}`;
  return url.toString();
}

async function runAs(url: string, statements: readonly string[]): Promise<void> {
  const session = await openPgSession(url);
  try {
    // One at a time: CREATE DATABASE may not run in the implicit transaction of a multi-statement query.
    for (const statement of statements) await session.query(statement);
  } finally {
    await session.end();
  }
}

/** A session as the application role, for what the server never tries. */
async function refusedToApp(statement: string): Promise<void> {
  const session = await openPgSession(urlAs(APP, DATABASE));
  try {
    await assert.rejects(session.query(statement), { code: '42501' }, statement);
  } finally {
    await session.end();
  }
}

async function cleanUp(): Promise<void> {
  await runAs(ADMIN_URL, [
    `DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`,
    // The roles own nothing elsewhere; DROP OWNED also takes any grant they hold in this database.
    ...[APP, OWNER].flatMap((role) => [
      `DO $$ BEGIN IF EXISTS (SELECT FROM pg_roles WHERE rolname = '${role}') THEN EXECUTE 'DROP OWNED BY ${role}'; END IF; END $$`,
      `DROP ROLE IF EXISTS ${role}`,
    ]),
  ]);
}

describe('PostgreSQL without a superuser (docs/OPERATIONS.md §2)', { skip: postgres.skip }, () => {
  let t: TestServer;
  before(async () => {
    const steps = documentedSteps();
    assert.deepEqual([...steps.keys()].sort(), ['1', '2', '3'], 'the three documented steps');
    await runAs(ADMIN_URL, steps.get('1')!);
    await runAs(urlAs(OWNER, DATABASE), steps.get('2')!);
    // As the documentation says: the CLI's `migrate`, with the owner's DATABASE_URL.
    const migrated = await run(process.execPath, ['src/cli.ts', 'migrate'], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: urlAs(OWNER, DATABASE), LOG_LEVEL: 'silent' },
    });
    assert.match(migrated.stdout, /Applied: 0001-initial-schema/);
    await runAs(urlAs(OWNER, DATABASE), steps.get('3')!);

    // The server on the database set up above, as the application role.
    const asApp: TestDialect = {
      name: 'postgres',
      skip: false,
      createDatabase: async () => ({ url: urlAs(APP, DATABASE), drop: async () => {} }),
    };
    // COUNT_EXACT_LIMIT=0: `count=estimated` reads the planner's estimate (EXPLAIN) whatever the size.
    t = await startTestServer(asApp, { DATABASE_STATEMENT_TIMEOUT_MS: '5000', COUNT_EXACT_LIMIT: '0' });
  });
  after(async () => {
    await t?.close();
    await cleanUp();
  });

  it('runs as a role with no superuser, CREATEDB, CREATEROLE or BYPASSRLS, with the statement timeout on', async () => {
    const session = await sql<{
      role: string;
      timeout: string;
    }>`select current_user as role, current_setting('statement_timeout') as timeout`.execute(t.server.db);
    assert.deepEqual(session.rows[0], { role: APP, timeout: '5s' });
    const roles = await sql<{
      rolname: string;
      rolsuper: boolean;
      rolcreatedb: boolean;
      rolcreaterole: boolean;
      rolbypassrls: boolean;
    }>`
      select rolname, rolsuper, rolcreatedb, rolcreaterole, rolbypassrls from pg_roles
      where rolname in (${OWNER}, ${APP}) order by rolname`.execute(t.server.db);
    assert.equal(roles.rows.length, 2);
    for (const role of roles.rows) {
      assert.deepEqual(
        [role.rolsuper, role.rolcreatedb, role.rolcreaterole, role.rolbypassrls],
        [false, false, false, false],
        role.rolname,
      );
    }
    // The owner's migrations created the trigram indexes (pg_trgm, created without a superuser), not skipped them.
    const trgm = await sql<{ indexname: string }>`
      select indexname from pg_indexes where indexname = 'products_name_trgm_idx'`.execute(t.server.db);
    assert.equal(trgm.rows.length, 1, 'pg_trgm and its index created by the owner');
  });

  it('reads and writes every kind of resource as the application role, with no 5xx', async () => {
    const answers: { what: string; status: number }[] = [];
    const call = async (method: string, path: string, token: string, body?: unknown): Promise<TestResponse> => {
      const res = await t.request(method, path, { token, ...(body === undefined ? {} : { body }) });
      answers.push({ what: `${method} ${path}`, status: res.status });
      return res;
    };
    const expect = (res: TestResponse, status: number) => assert.equal(res.status, status, res.text);
    const admin = t.adminToken;
    const statements: string[] = [];
    const failed: string[] = [];
    const stopObserving = observeQueries(t.server.db, (text, _ms, didFail) => {
      statements.push(text);
      if (didFail) failed.push(text);
    });

    const alice = await t.createUser({ name: 'Alice' });
    const bob = await t.createUser({ name: 'Bob' });
    const post = await call('POST', `/api/users/${alice.id}/posts`, alice.token, { title: 'Hello', content: 'World' });
    expect(post, 201);
    const comment = await call('POST', `/api/posts/${post.body.id}/comments`, bob.token, { text: 'Nice' });
    expect(comment, 201);
    expect(await call('POST', `/api/comments/${comment.body.id}/likes`, alice.token), 201);
    const product = await call('POST', '/api/products', admin, { name: 'Lamp', category: 'home', price: 25, stock: 5 });
    expect(product, 201);
    expect(await call('PATCH', `/api/products/${product.body.id}`, admin, { price: 30 }), 200);
    const order = await call('POST', '/api/orders', bob.token, {
      items: [{ productId: product.body.id, quantity: 2 }],
    });
    expect(order, 201);
    expect(await call('POST', `/api/orders/${order.body.id}/pay`, bob.token), 200);
    expect(await call('PATCH', `/api/users/${alice.id}`, alice.token, { name: 'Alice B.' }), 200);

    for (const path of [
      '/api/users',
      '/api/v2/users?sort=-createdAt',
      `/api/users/${alice.id}/posts`,
      '/api/posts?search=hello',
      `/api/posts/${post.body.id}/comments`,
      `/api/comments/${comment.body.id}/likes`,
      '/api/products?search=lam&count=estimated',
      `/api/products/${product.body.id}`,
      '/api/orders',
      `/api/orders/${order.body.id}`,
      '/api/events',
    ]) {
      expect(await call('GET', path, admin), 200);
    }
    const graphql = await call('POST', '/graphql', admin, {
      query: '{ users(limit: 5) { id name } posts { id title } }',
    });
    expect(graphql, 200);
    assert.equal(graphql.body.errors, undefined, graphql.text);

    // A report job: claimed by the background worker (FOR UPDATE SKIP LOCKED), built and stored as content_app.
    const report = await call('POST', '/api/reports/generate', admin, { type: 'sales' });
    expect(report, 202);
    let job: TestResponse | undefined;
    for (let i = 0; i < 100; i += 1) {
      job = await call('GET', `/api/reports/${report.body.id}`, admin);
      if (job.body.status !== 'queued' && job.body.status !== 'running') break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(job?.body.status, 'done', job?.text);

    expect(await call('DELETE', `/api/comments/${comment.body.id}/likes`, alice.token), 204);
    expect(await call('DELETE', `/api/posts/${post.body.id}/comments/${comment.body.id}`, bob.token), 204);
    const unsold = await call('POST', '/api/products', admin, { name: 'Chair', category: 'home', price: 40, stock: 1 });
    expect(unsold, 201);
    expect(await call('DELETE', `/api/products/${unsold.body.id}`, admin), 204);
    // The API deletes no post by itself: deleting its author takes it (and its comments) with them.
    expect(await call('DELETE', `/api/users/${alice.id}`, admin), 204);
    expect(await call('GET', `/api/users/${alice.id}/posts`, admin), 404);

    stopObserving();
    assert.deepEqual(
      answers.filter((answer) => answer.status >= 500),
      [],
    );
    assert.deepEqual(failed, [], 'no statement refused to the application role');
    assert.ok(
      statements.some((text) => /^explain\b/i.test(text)),
      'count=estimated asked the planner',
    );
  });

  it('refuses the application role any change to the schema', async () => {
    await refusedToApp('create table probe (id integer)');
    await refusedToApp('create temporary table probe (id integer)');
    await refusedToApp('alter table users add column probe integer');
    await refusedToApp('drop table comments');
    await refusedToApp('truncate users');
    await refusedToApp(`insert into kysely_migration (name, timestamp) values ('9999-probe', 'now')`);
    await refusedToApp(`delete from kysely_migration`);
  });

  it("gives the application role the rows of a table a later migration creates (the owner's default privileges)", async () => {
    await runAs(urlAs(OWNER, DATABASE), [
      'create table later_table (id integer generated always as identity primary key, label text not null)',
    ]);
    const inserted = await sql<{ id: number }>`insert into later_table (label) values ('x') returning id`.execute(
      t.server.db,
    );
    assert.equal(inserted.rows.length, 1);
    await sql`update later_table set label = 'y'`.execute(t.server.db);
    await sql`select nextval(pg_get_serial_sequence('later_table', 'id'))`.execute(t.server.db);
    await sql`delete from later_table`.execute(t.server.db);
    await runAs(urlAs(OWNER, DATABASE), ['drop table later_table']);
  });
});
