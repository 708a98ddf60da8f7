import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { observeQueries } from '../../core/db/database.ts';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { QUIET_ENV, createProduct, placeOrder } from '../../../test/support/orders.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

type Person = { id: number; token: string };
type Where = { customers?: number[]; statuses?: string[] };

/**
 * The orders list's exact totals come from maintained counters (`order_counts`: per customer and
 * status, all customers under 0, all statuses under '') when it is unfiltered or filtered by customer
 * and status only (a customer's own list included), and stay exact through every write that adds,
 * removes or moves an order: placing, paying, cancelling, refunding, the hold running out, and SQL.
 */
for (const dialect of DIALECTS) {
  describe(`orders list totals from counters (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let people: Person[];

    before(async () => {
      // Enough connections for the concurrent requests to meet in PostgreSQL, not in the pool.
      t = await startTestServer(dialect, { ...QUIET_ENV, DATABASE_POOL_SIZE: '8' });
      people = [await t.createUser(), await t.createUser(), await t.createUser()];
    });
    after(() => t?.close());

    /** Places `n` orders of one unit for `who`, one after another; their ids. */
    async function place(who: Person, n: number, productId?: number): Promise<number[]> {
      const product = productId ?? (await createProduct(t, { stock: 100 })).id;
      const ids: number[] = [];
      for (let i = 0; i < n; i += 1)
        ids.push((await placeOrder(t, who.token, [{ productId: product, quantity: 1 }])).body.id);
      return ids;
    }

    const act = async (id: number, action: string, token = t.adminToken) => {
      const res = await t.request('POST', `/api/orders/${id}/${action}`, { token });
      assert.equal(res.status, 200, `${action} ${id}: ${res.text}`);
    };

    /** The statements one list request ran, and its total. */
    async function totalOf(path: string, token = t.adminToken) {
      const statements: string[] = [];
      const stop = observeQueries(t.server.db, (text) => statements.push(text));
      const res = await t.request('GET', `${path}${path.includes('?') ? '&' : '?'}limit=1`, { token });
      stop();
      assert.equal(res.status, 200, `${path}: ${res.text}`);
      return { total: res.body.pagination.total as number, statements };
    }

    async function recount(where: Where) {
      let query = t.server.db.selectFrom('orders').select((eb) => eb.fn.countAll<number | string>().as('n'));
      if (where.customers) query = query.where('customer_id', 'in', where.customers);
      if (where.statuses) query = query.where('status', 'in', where.statuses as 'paid'[]);
      return Number((await query.executeTakeFirstOrThrow()).n);
    }

    async function assertExact() {
      const [a, b, c] = people;
      const cases: [string, Where, Person?][] = [
        ['/api/orders', {}],
        ['/api/orders?count=estimated', {}],
        ['/api/orders?status=paid', { statuses: ['paid'] }],
        ['/api/orders?status[in]=pending,cancelled', { statuses: ['pending', 'cancelled'] }],
        [`/api/orders?customerId=${a!.id}`, { customers: [a!.id] }],
        [`/api/orders?customerId[in]=${a!.id},${c!.id}`, { customers: [a!.id, c!.id] }],
        [`/api/orders?customerId=${b!.id}&status=refunded`, { customers: [b!.id], statuses: ['refunded'] }],
        [
          `/api/orders?customerId[in]=${a!.id},${b!.id}&status[in]=paid,pending,refunded`,
          { customers: [a!.id, b!.id], statuses: ['paid', 'pending', 'refunded'] },
        ],
        // A customer's own list: scoped to their id, alone or with their own id and a status.
        ['/api/orders', { customers: [b!.id] }, b],
        [
          `/api/orders?customerId=${b!.id}&status[in]=cancelled,paid`,
          { customers: [b!.id], statuses: ['cancelled', 'paid'] },
          b,
        ],
      ];
      for (const [path, where, who] of cases) {
        const { total, statements } = await totalOf(path, who?.token);
        assert.equal(total, await recount(where), `${path} as ${who ? 'customer' : 'admin'}`);
        assert.ok(
          statements.some((s) => s.includes('order_counts')) && !statements.some((s) => /count\(/.test(s)),
          `${path}: ${statements.join('\n')}`,
        );
      }
      // Customer 0 (the counters' key of all customers) and ids no user has count nothing; nor do
      // conditions that exclude each other.
      assert.equal((await t.request('GET', '/api/orders?customerId=0', { token: t.adminToken })).status, 422);
      for (const path of [
        '/api/orders?customerId[in]=0,-1',
        '/api/orders?customerId[eq]=0',
        `/api/orders?customerId[in]=${a!.id},${b!.id}&customerId=${c!.id}`,
      ]) {
        const { total, statements } = await totalOf(path);
        assert.equal(total, 0, path);
        assert.ok(!statements.some((s) => /count\(/.test(s)), `${path}: ${statements.join('\n')}`);
      }
    }

    it('answers unfiltered, customer and status totals from the counters, exactly, through every kind of write', async () => {
      await assertExact();
      const [a, b, c] = people as [Person, Person, Person];
      const ofA = await place(a, 4);
      const ofB = await place(b, 3);
      await place(c, 2);
      await assertExact();
      await act(ofA[0]!, 'pay', a.token);
      await act(ofA[1]!, 'cancel', a.token);
      await act(ofB[0]!, 'pay', b.token);
      await act(ofB[0]!, 'refund');
      await act(ofB[1]!, 'pay');
      await assertExact();
      // The hold runs out: the sweep cancels the overdue pending orders.
      await t.server.db
        .updateTable('orders')
        .set({ created_at: new Date(Date.now() - 31 * 60_000).toISOString() })
        .where('id', 'in', [ofA[2]!, ofB[2]!])
        .execute();
      const swept = await t.server.app.services.orders.expireOverdueOrders();
      assert.equal(swept.cancelled, 2);
      await assertExact();
      // Statements writing many rows at once (the seed's bulk insert, an administrator's SQL).
      const at = new Date().toISOString();
      await sql`insert into orders (customer_id, status, amount_cents, currency, created_at, updated_at, paid_at)
        values (${a.id}, 'paid', 100, 'USD', ${at}, ${at}, ${at}), (${c.id}, 'pending', 100, 'USD', ${at}, ${at}, null),
               (${c.id}, 'paid', 100, 'USD', ${at}, ${at}, ${at})`.execute(t.server.db);
      await assertExact();
      await sql`update orders set customer_id = ${b.id}, status = 'cancelled' where customer_id = ${c.id}`.execute(
        t.server.db,
      );
      await sql`update orders set customer_id = ${a.id} where id = ${ofB[1]!}`.execute(t.server.db);
      await assertExact();
      await sql`delete from order_items where order_id in (select id from orders where customer_id = ${a.id})`.execute(
        t.server.db,
      );
      await sql`delete from orders where customer_id = ${a.id} and status <> 'pending'`.execute(t.server.db);
      await assertExact();
    });

    it('stays exact when a write rolls back', async () => {
      const before = await totalOf('/api/orders?status=pending');
      const at = new Date().toISOString();
      await assert.rejects(
        t.server.db.transaction().execute(async (trx) => {
          await trx
            .insertInto('orders')
            .values({
              customer_id: people[0]!.id,
              status: 'pending',
              amount_cents: 1,
              currency: 'USD',
              created_at: at,
              updated_at: at,
            })
            .execute();
          await trx.updateTable('orders').set({ status: 'paid' }).where('status', '=', 'pending').execute();
          throw new Error('rolled back');
        }),
        /rolled back/,
      );
      // Placing an order for more than there is rolls back the whole placement.
      const scarce = await createProduct(t, { stock: 1 });
      const short = await t.request('POST', '/api/orders', {
        token: people[1]!.token,
        body: { items: [{ productId: scarce.id, quantity: 2 }] },
      });
      assert.equal(short.status, 409);
      assert.equal((await totalOf('/api/orders?status=pending')).total, before.total);
      await assertExact();
    });

    it('stays exact, and never deadlocks, through concurrent placements and transitions of one product', async () => {
      const product = await createProduct(t, { stock: 10_000 });
      const buyers = [...people, await t.createUser(), await t.createUser(), await t.createUser()];
      const buy = (who: Person) =>
        t.request('POST', '/api/orders', {
          token: who.token,
          body: { items: [{ productId: product.id, quantity: 1 }] },
        });
      let pending = await Promise.all(buyers.map(async (who) => ({ who, id: (await buy(who)).body.id as number })));
      let paid: number[] = [];
      const failed: string[] = [];
      const stop = observeQueries(t.server.db, (text, _ms, didFail) => {
        if (didFail) failed.push(text);
      });
      try {
        for (let round = 0; round < 4; round += 1) {
          // Each buyer's last order is paid or cancelled (both racing for one of them), the paid ones of
          // the round before are refunded, and every buyer places a new order of the same product: a
          // cancellation returns the stock that a placement takes, beside it.
          const responses = await Promise.all([
            ...pending.flatMap(({ who, id }, i) => [
              t.request('POST', `/api/orders/${id}/${i % 2 === 0 ? 'pay' : 'cancel'}`, { token: who.token }),
              ...(i === 0 ? [t.request('POST', `/api/orders/${id}/cancel`, { token: who.token })] : []),
            ]),
            ...paid.map((id) => t.request('POST', `/api/orders/${id}/refund`, { token: t.adminToken })),
            ...buyers.map(buy),
          ]);
          assert.deepEqual(
            responses.filter((r) => r.status >= 500 || r.status === 422).map((r) => r.text),
            [],
          );
          paid = responses.filter((r) => r.status === 200 && r.body.status === 'paid').map((r) => r.body.id);
          pending = responses
            .filter((r) => r.status === 201)
            .map((r) => ({ who: buyers.find((b) => b.id === r.body.customerId)!, id: r.body.id }));
        }
      } finally {
        stop();
      }
      // A deadlock fails one statement (the transaction is then retried, a second later).
      assert.deepEqual(failed, [], 'no statement failed');
      await assertExact();
    });

    it('counts the rows for any other filter, and the totals agree', async () => {
      const { total, statements } = await totalOf('/api/orders?status=paid&amount[gte]=5');
      assert.ok(!statements.some((s) => s.includes('order_counts')));
      assert.ok(statements.some((s) => /count\(/.test(s)));
      const counted = await t.server.db
        .selectFrom('orders')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('status', '=', 'paid')
        .where('amount_cents', '>=', 500)
        .executeTakeFirstOrThrow();
      assert.equal(total, Number(counted.n));
    });
  });
}
