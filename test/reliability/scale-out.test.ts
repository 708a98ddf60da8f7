import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { sql } from 'kysely';
import type { Db } from '../../src/core/db/database.ts';
import { dialectNamed } from '../support/dialects.ts';
import { REDIS_URL, redisUp } from '../support/redis.ts';
import {
  call,
  insertProducts,
  openDatabase,
  signUpUsers,
  startProcess,
  tokenFor,
  waitFor,
} from './harness.test-support.ts';
import { stockProblems, orderProblems } from './invariants.test-support.ts';

const BUDGET = 60;
const postgres = dialectNamed('postgres');

const skip = postgres.skip || (!redisUp && `Redis not reachable at ${REDIS_URL}`);

/** Records every claim of a report job (a move to `running` by a worker), to count how often each job ran. */
async function auditReportClaims(db: Db): Promise<void> {
  await sql`create table report_claims (job_id integer not null, worker text not null)`.execute(db);
  await sql`create function record_report_claim() returns trigger language plpgsql as $$
    begin insert into report_claims values (new.id, new.locked_by); return new; end $$`.execute(db);
  await sql`create trigger report_claims after update on report_jobs for each row
    when (new.status = 'running' and new.locked_by is distinct from old.locked_by) execute function record_report_claim()`.execute(
    db,
  );
}

/**
 * The properties of a scaled-out deployment, with requests alternating between `a` and `b` (two
 * instances, or one WORKERS=2 process reached over a new connection per request).
 */
async function checkScaleOut(
  t: { diagnostic(message: string): void },
  db: Db,
  a: string,
  b: string,
  close: boolean,
): Promise<void> {
  const send = (base: string, method: string, path: string, options: Parameters<typeof call>[3] = {}) =>
    call(base, method, path, { close, ...options });
  const tag = randomBytes(4).toString('hex');
  const [author, buyer, racer, limited] = await signUpUsers(a, 4, `scale-${tag}`);
  const admin = await tokenFor(1, 'admin');
  const products = await insertProducts(db, 2, 100);

  // Data written through one is read the same through the other.
  const created = await send(a, 'POST', `/api/users/${author!.id}/posts`, {
    token: author!.token,
    body: { title: 'Seen everywhere', content: 'One store.' },
  });
  assert.equal(created.status, 201);
  const fromA = await send(a, 'GET', `/api/posts/${created.body.id}`, { token: author!.token });
  const fromB = await send(b, 'GET', `/api/posts/${created.body.id}`, { token: author!.token });
  assert.equal(fromB.status, 200);
  assert.deepEqual(fromB.body, fromA.body);
  assert.equal(fromB.headers.get('etag'), fromA.headers.get('etag'));

  // An Idempotency-Key used on one replays on the other.
  const key = randomUUID();
  const order = { items: [{ productId: products[0]!.id, quantity: 2 }] };
  const first = await send(a, 'POST', '/api/orders', {
    token: buyer!.token,
    body: order,
    headers: { 'idempotency-key': key },
  });
  const replay = await send(b, 'POST', '/api/orders', {
    token: buyer!.token,
    body: order,
    headers: { 'idempotency-key': key },
  });
  assert.equal(first.status, 201);
  assert.equal(replay.status, 201);
  assert.equal(replay.headers.get('idempotent-replayed'), 'true');
  assert.deepEqual(replay.body, first.body);
  const buyerOrders = await db.selectFrom('orders').select('id').where('customer_id', '=', buyer!.id).execute();
  assert.equal(buyerOrders.length, 1, 'the order was placed once');

  // Two racing `pay` requests on different instances: exactly one succeeds.
  const pending: number[] = [];
  for (let i = 0; i < 10; i += 1) {
    const placed = await send(i % 2 ? a : b, 'POST', '/api/orders', {
      token: racer!.token,
      body: { items: [{ productId: products[1]!.id, quantity: 1 }] },
    });
    assert.equal(placed.status, 201);
    pending.push(placed.body.id as number);
  }
  for (const id of pending) {
    const outcomes = await Promise.all(
      [a, b].map((base) => send(base, 'POST', `/api/orders/${id}/pay`, { token: racer!.token })),
    );
    assert.deepEqual(outcomes.map((o) => o.status).sort(), [200, 409], `order ${id}`);
    assert.equal(outcomes.find((o) => o.status === 409)!.body.error.code, 'INVALID_STATE');
  }
  assert.deepEqual(await stockProblems(db, products), []);
  assert.deepEqual(await orderProblems(db), []);

  // Report jobs queued through both run exactly once each.
  const jobs: number[] = [];
  for (let i = 0; i < 10; i += 1) {
    const queued = await send(i % 2 ? a : b, 'POST', '/api/reports/generate', {
      token: admin,
      body: { type: 'sales' },
    });
    assert.equal(queued.status, 202);
    jobs.push(queued.body.id as number);
  }
  await waitFor(
    async () =>
      (await db.selectFrom('report_jobs').select('id').where('id', 'in', jobs).where('status', '=', 'done').execute())
        .length === jobs.length,
    30_000,
    'the reports',
  );
  const claims = await sql<{
    job_id: number;
    worker: string;
  }>`select job_id, worker from report_claims where job_id in (${sql.join(jobs)})`.execute(db);
  assert.deepEqual(
    claims.rows.map((row) => row.job_id).sort((x, y) => x - y),
    [...jobs].sort((x, y) => x - y),
    'each job claimed exactly once',
  );
  const workers = new Set(claims.rows.map((row) => row.worker.split(':')[1]));
  t.diagnostic(`report jobs ran on ${workers.size} process(es): ${[...workers].join(', ')}`);

  // The rate-limit budget of one subject is shared: BUDGET requests in all, whichever instance serves them.
  const remaining: number[] = [];
  for (let i = 0; i < BUDGET; i += 1) {
    const res = await send(i % 2 ? a : b, 'GET', '/api/products?limit=1', { token: limited!.token });
    assert.equal(res.status, 200, `request ${i + 1}`);
    remaining.push(Number(res.headers.get('ratelimit-remaining')));
  }
  assert.deepEqual(
    remaining,
    Array.from({ length: BUDGET }, (_, i) => BUDGET - 1 - i),
  );
  for (const base of [a, b]) {
    const refused = await send(base, 'GET', '/api/products?limit=1', { token: limited!.token });
    assert.equal(refused.status, 429);
    assert.equal(refused.body.error.code, 'RATE_LIMITED');
  }
}

describe('scale-out on one PostgreSQL and one Redis', { skip }, () => {
  const prefix = `content-service-reliability:${randomBytes(6).toString('hex')}:`;
  const env = {
    REDIS_URL,
    RATE_LIMIT_REDIS_PREFIX: prefix,
    RATE_LIMIT_MAX: String(BUDGET),
    REPORT_POLL_MS: '50',
    DATABASE_POOL_SIZE: '3',
  };
  after(async () => {
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('two instances on two ports serve the same data, replay keys, share the budget, run each report once and let one of two racing pays win', async (t) => {
    const database = await postgres.createDatabase();
    const db = openDatabase(database.url);
    try {
      const one = await startProcess({ ...env, DATABASE_URL: database.url });
      await auditReportClaims(db);
      const two = await startProcess({ ...env, DATABASE_URL: database.url });
      assert.ok(
        !two.lines.some((line) => line.includes('Applied migrations')),
        'the second instance finds the schema ready',
      );
      await checkScaleOut(t, db, one.url, two.url, false);
      for (const server of [one, two]) server.process.kill('SIGTERM');
      assert.deepEqual(await Promise.all([one.exited, two.exited]), [0, 0]);
    } finally {
      await db.destroy();
      await database.drop();
    }
  });

  it('WORKERS=2 on one port serves the same', async (t) => {
    const database = await postgres.createDatabase();
    const db = openDatabase(database.url);
    try {
      const server = await startProcess({
        ...env,
        DATABASE_URL: database.url,
        WORKERS: '2',
        RATE_LIMIT_REDIS_PREFIX: `${prefix}workers:`,
      });
      await waitFor(
        () => server.lines.filter((line) => line.includes('Server listening')).length === 2,
        60_000,
        'both workers',
      );
      await auditReportClaims(db);
      // A new connection per request: the cluster hands connections to the workers in turn.
      await checkScaleOut(t, db, server.url, server.url, true);
      server.process.kill('SIGTERM');
      assert.equal(await server.exited, 0);
    } finally {
      await db.destroy();
      await database.drop();
    }
  });
});
