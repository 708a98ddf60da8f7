import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestResponse, type TestServer } from '../../../test/support/test-server.ts';
import { QUIET_ENV, createProduct, orderIn, placeOrder, startInstanceOn } from '../../../test/support/orders.ts';
import { claimNextJob } from './reports.repository.ts';

const POLL = { ...QUIET_ENV, REPORT_WORKER: 'true', REPORT_POLL_MS: '20' };

async function waitForStatus(
  read: () => Promise<TestResponse>,
  status: string,
  timeoutMs = 10_000,
): Promise<TestResponse> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await read();
    if (res.body.status === status) return res;
    if (Date.now() > deadline) throw new Error(`report still ${res.body.status}, expected ${status}`);
    await sleep(25);
  }
}

for (const dialect of DIALECTS) {
  describe(`reports (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(dialect, POLL);
    });
    after(() => t?.close());

    const generate = (body: unknown, token = t.adminToken) =>
      t.request('POST', '/api/reports/generate', { token, body });
    const read = (href: string) => () => t.request('GET', href, { token: t.adminToken });

    it('answers 202 with Location, then runs the sales report in the background: totals by status and currency', async () => {
      const since = new Date().toISOString();
      await orderIn(t, 'pending', { quantity: 1 }); // 12.50
      await orderIn(t, 'paid', { quantity: 2 }); // 25.00
      await orderIn(t, 'paid', { quantity: 1 }); // 12.50
      await orderIn(t, 'cancelled', { quantity: 3 }); // 37.50
      await orderIn(t, 'refunded', { quantity: 4 }); // 50.00
      const res = await generate({ type: 'sales', from: since });
      assert.equal(res.status, 202);
      assert.equal(res.headers.get('location'), `/api/reports/${res.body.id}`);
      assert.ok(['queued', 'running', 'done'].includes(res.body.status));
      assert.equal(res.body.type, 'sales');
      assert.deepEqual(res.body.params, { from: since, to: null });

      const done = await waitForStatus(read(res.headers.get('location')!), 'done');
      assert.equal(done.body.error, null);
      assert.match(done.body.finishedAt, /Z$/);
      assert.deepEqual(done.body.result, {
        type: 'sales',
        from: since,
        to: null,
        orders: 5,
        byStatus: [
          { status: 'pending', currency: 'USD', orders: 1, amount: 12.5 },
          { status: 'paid', currency: 'USD', orders: 2, amount: 37.5 },
          { status: 'cancelled', currency: 'USD', orders: 1, amount: 37.5 },
          { status: 'refunded', currency: 'USD', orders: 1, amount: 50 },
        ],
      });
      assert.deepEqual(done.body._links, { self: { href: `/api/reports/${res.body.id}` } });
    });

    it('counts users by role and status, and content, within the range', async () => {
      const since = new Date().toISOString();
      await t.createUser();
      await t.createUser({ status: 'suspended' });
      await t.createUser({ role: 'admin' });
      const users = await generate({ type: 'users', from: since });
      const content = await generate({ type: 'content', to: '2000-01-01' });
      const usersDone = await waitForStatus(read(users.headers.get('location')!), 'done');
      assert.deepEqual(usersDone.body.result, {
        type: 'users',
        from: since,
        to: null,
        users: 3,
        byRole: { user: 2, admin: 1 },
        byStatus: { active: 2, inactive: 0, suspended: 1 },
      });
      const contentDone = await waitForStatus(read(content.headers.get('location')!), 'done');
      // A bare `to` date includes that whole day: the range ends at the next midnight.
      assert.deepEqual(contentDone.body.result, {
        type: 'content',
        from: null,
        to: '2000-01-02T00:00:00.000Z',
        posts: 0,
        comments: 0,
        likes: 0,
      });
    });

    it('is for admins only (403 for users, 401 anonymous), validates the body, and 404s unknown reports', async () => {
      const user = await t.createUser();
      assert.equal((await generate({ type: 'sales' }, user.token)).status, 403);
      assert.equal((await t.request('POST', '/api/reports/generate', { body: { type: 'sales' } })).status, 401);
      const cases: [unknown, string][] = [
        [{}, 'type'],
        [{ type: 'weather' }, 'type'],
        [{ type: 'sales', from: 'yesterday' }, 'from'],
        [{ type: 'sales', from: '2026-02-31' }, 'from'],
        [{ type: 'sales', from: '2026-03-01', to: '2026-01-01' }, 'to'],
        [{ type: 'sales', extra: 1 }, 'extra'],
      ];
      for (const [body, field] of cases) {
        const res = await generate(body);
        assert.equal(res.status, 422, JSON.stringify(body));
        assert.ok(
          res.body.error.details.some((d: { field: string }) => d.field === field),
          `${JSON.stringify(body)} → ${res.text}`,
        );
      }
      const queued = await generate({ type: 'content' });
      assert.equal((await t.request('GET', queued.headers.get('location')!, { token: user.token })).status, 403);
      assert.equal((await t.request('GET', '/api/reports/999999', { token: t.adminToken })).status, 404);
      assert.equal((await t.request('GET', '/api/reports/abc', { token: t.adminToken })).status, 404);
    });

    it('resumes a job whose worker died mid-run (running with an expired lease) and completes it', async () => {
      const res = await generate({ type: 'content' });
      const id = res.body.id as number;
      await waitForStatus(read(`/api/reports/${id}`), 'done');
      // Rewind it to the state a crashed instance leaves behind.
      await t.server.db
        .updateTable('report_jobs')
        .set({
          status: 'running',
          result: null,
          finished_at: null,
          locked_by: 'crashed-instance',
          locked_until: new Date(Date.now() - 1000).toISOString(),
        })
        .where('id', '=', id)
        .execute();
      const done = await waitForStatus(read(`/api/reports/${id}`), 'done');
      assert.equal(done.body.result.type, 'content');
      const row = await t.server.db
        .selectFrom('report_jobs')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      assert.equal(row.locked_by, null);
    });

    it('leaves a running job alone while its lease is valid', async () => {
      const res = await generate({ type: 'users' });
      const id = res.body.id as number;
      await waitForStatus(read(`/api/reports/${id}`), 'done');
      await t.server.db
        .updateTable('report_jobs')
        .set({
          status: 'running',
          result: null,
          finished_at: null,
          locked_by: 'busy-instance',
          locked_until: new Date(Date.now() + 60_000).toISOString(),
        })
        .where('id', '=', id)
        .execute();
      await sleep(200);
      assert.equal((await read(`/api/reports/${id}`)()).body.status, 'running');
      await t.server.db
        .updateTable('report_jobs')
        .set({ status: 'done', locked_by: null, locked_until: null })
        .where('id', '=', id)
        .execute();
    });

    it('gives each job to exactly one of several instances racing to claim it', async () => {
      const other = await startInstanceOn(t);
      try {
        const now = new Date().toISOString();
        const ids = (
          await t.server.db
            .insertInto('report_jobs')
            .values(
              Array.from({ length: 10 }, () => ({
                type: 'content' as const,
                params: '{"from":null,"to":null}',
                status: 'queued' as const,
                result: null,
                error: null,
                requested_by: null,
                locked_by: null,
                locked_until: null,
                created_at: now,
                updated_at: now,
                finished_at: null,
              })),
            )
            .returning('id')
            .execute()
        ).map((row) => row.id);
        const lease = new Date(Date.now() + 600_000).toISOString();
        // Rounds of 20 claims at once from two instances' own connections (the first's worker claims too),
        // until nothing is left: a claim that loses a race comes back empty and the next poll retries.
        const claimed: number[] = [];
        for (let round = 0; round < 20; round += 1) {
          const claims = await Promise.all(
            Array.from({ length: 20 }, (_, i) =>
              claimNextJob(
                i % 2 === 0 ? t.server.db : other.server.db,
                `racer-${round}-${i}`,
                new Date().toISOString(),
                lease,
              ),
            ),
          );
          claimed.push(...claims.filter((row) => row !== undefined && ids.includes(row.id)).map((row) => row!.id));
          const left = await t.server.db
            .selectFrom('report_jobs')
            .select('id')
            .where('id', 'in', ids)
            .where('status', '=', 'queued')
            .execute();
          if (left.length === 0) break;
        }
        assert.equal(new Set(claimed).size, claimed.length, 'a job was claimed twice');
        const rows = await t.server.db
          .selectFrom('report_jobs')
          .select(['id', 'status', 'locked_by'])
          .where('id', 'in', ids)
          .execute();
        assert.ok(
          rows.every((row) => row.status !== 'queued'),
          'every job was claimed',
        );
        for (const row of rows.filter((r) => r.locked_by?.startsWith('racer-'))) assert.ok(claimed.includes(row.id));
      } finally {
        await other.close();
      }
    });

    it('keeps sales money exact to the cent', async () => {
      const since = new Date().toISOString();
      const customer = await t.createUser();
      const product = await createProduct(t, { priceCents: 333, stock: 100 });
      for (let i = 0; i < 3; i += 1) await placeOrder(t, customer.token, [{ productId: product.id, quantity: 1 }]);
      const res = await generate({ type: 'sales', from: since });
      const done = await waitForStatus(read(res.headers.get('location')!), 'done');
      assert.equal(done.body.result.byStatus.find((r: { status: string }) => r.status === 'pending').amount, 9.99);
    });
  });

  describe(`reports across a restart (${dialect.name})`, { skip: dialect.skip }, () => {
    // This server runs no worker: only the instance started after the "crash" can finish the job.
    let t: TestServer;
    before(async () => {
      t = await startTestServer(dialect, QUIET_ENV);
    });
    after(() => t?.close());

    it('keeps a job queued while no worker runs, and completes one interrupted mid-run after a restart', async () => {
      const queued = await t.request('POST', '/api/reports/generate', { token: t.adminToken, body: { type: 'sales' } });
      const interrupted = await t.request('POST', '/api/reports/generate', {
        token: t.adminToken,
        body: { type: 'users' },
      });
      await sleep(100);
      assert.equal(
        (await t.request('GET', `/api/reports/${queued.body.id}`, { token: t.adminToken })).body.status,
        'queued',
      );
      // The state an instance that died while running the job leaves behind: running, lease run out.
      await t.server.db
        .updateTable('report_jobs')
        .set({ status: 'running', locked_by: 'crashed-instance', locked_until: new Date(Date.now() - 1).toISOString() })
        .where('id', '=', interrupted.body.id)
        .execute();

      const restarted = await startInstanceOn(t, POLL);
      try {
        for (const [id, type] of [
          [queued.body.id, 'sales'],
          [interrupted.body.id, 'users'],
        ] as const) {
          const done = await waitForStatus(
            () => restarted.request('GET', `/api/reports/${id}`, { token: t.adminToken }),
            'done',
          );
          assert.equal(done.body.result.type, type);
        }
      } finally {
        await restarted.close();
      }
    });
  });
}
