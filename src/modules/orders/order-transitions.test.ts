import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';
import { QUIET_ENV, orderIn, stockOf } from '../../../test/support/orders.ts';

type Status = 'pending' | 'paid' | 'cancelled' | 'refunded';
type Action = 'pay' | 'cancel' | 'refund';

/** The expected life cycle, written out independently of the implementation's table. */
const NEXT: Record<Status, Partial<Record<Action, Status>>> = {
  pending: { pay: 'paid', cancel: 'cancelled' },
  paid: { refund: 'refunded' },
  cancelled: {},
  refunded: {},
};
const STAMP: Record<Action, string> = { pay: 'paidAt', cancel: 'cancelledAt', refund: 'refundedAt' };

function expectedLinks(status: Status, id: number, customerId: number) {
  const self = `/api/orders/${id}`;
  const customer = { href: `/api/customers/${customerId}`, method: 'GET' };
  const receipt = { href: `${self}/receipt`, method: 'GET' };
  return {
    pending: {
      self: { href: self },
      cancel: { href: `${self}/cancel`, method: 'POST' },
      pay: { href: `${self}/pay`, method: 'POST' },
      customer,
    },
    paid: { self: { href: self }, refund: { href: `${self}/refund`, method: 'POST' }, receipt },
    cancelled: { self: { href: self }, customer },
    refunded: { self: { href: self }, receipt, customer },
  }[status];
}

for (const dialect of DIALECTS) {
  describe(`order state machine (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(dialect, QUIET_ENV);
    });
    after(() => t?.close());

    for (const status of ['pending', 'paid', 'cancelled', 'refunded'] as const) {
      it(`shows exactly the ${status} links`, async () => {
        const { order, customer } = await orderIn(t, status);
        const res = await t.request('GET', `/api/orders/${order.id}`, { token: customer.token });
        assert.equal(res.body.status, status);
        assert.deepEqual(res.body._links, expectedLinks(status, order.id, customer.id));
      });

      for (const action of ['pay', 'cancel', 'refund'] as const) {
        const next = NEXT[status][action];
        const token = (customerToken: string) => (action === 'refund' ? t.adminToken : customerToken);
        if (next) {
          it(`${action} on a ${status} order makes it ${next}, with its links and timestamp`, async () => {
            const { order, customer, product } = await orderIn(t, status, { stock: 10, quantity: 3 });
            const stockBefore = await stockOf(t, product.id);
            const res = await t.request('POST', `/api/orders/${order.id}/${action}`, { token: token(customer.token) });
            assert.equal(res.status, 200);
            assert.equal(res.body.status, next);
            assert.match(res.body[STAMP[action]], /Z$/);
            assert.equal(res.body.updatedAt, res.body[STAMP[action]]);
            assert.deepEqual(res.body._links, expectedLinks(next, order.id, customer.id));
            const returnsStock = action !== 'pay';
            assert.equal(await stockOf(t, product.id), stockBefore + (returnsStock ? 3 : 0));
            const read = await t.request('GET', `/api/orders/${order.id}`, { token: customer.token });
            assert.deepEqual(read.body, res.body);
          });
        } else {
          it(`${action} on a ${status} order is 409 INVALID_STATE naming the status, and changes nothing`, async () => {
            const { order, customer, product } = await orderIn(t, status);
            const before = await t.request('GET', `/api/orders/${order.id}`, { token: customer.token });
            const stockBefore = await stockOf(t, product.id);
            const res = await t.request('POST', `/api/orders/${order.id}/${action}`, { token: token(customer.token) });
            assert.equal(res.status, 409);
            assert.equal(res.body.error.code, 'INVALID_STATE');
            assert.match(res.body.error.message, new RegExp(`\\b${status}\\b`));
            const allowed = Object.keys(NEXT[status]).join(', ') || 'none';
            assert.deepEqual(res.body.error.details, [
              { field: 'status', message: `is ${status}; allowed actions: ${allowed}` },
            ]);
            const after = await t.request('GET', `/api/orders/${order.id}`, { token: customer.token });
            assert.deepEqual(after.body, before.body);
            assert.equal(await stockOf(t, product.id), stockBefore);
          });
        }
      }
    }

    it('lets a client drive an order from creation to refund by following only its links', async () => {
      const { order, customer, product } = await orderIn(t, 'pending', { stock: 4, quantity: 4 });
      assert.equal(await stockOf(t, product.id), 0);
      let current = order;
      for (const [rel, token] of [
        ['pay', customer.token],
        ['refund', t.adminToken],
      ] as const) {
        const link = current._links[rel]!;
        const res = await t.request(link.method!, link.href, { token });
        assert.equal(res.status, 200, rel);
        current = res.body;
      }
      assert.equal((current as { status: string }).status, 'refunded');
      const receipt = await t.request(current._links.receipt!.method!, current._links.receipt!.href, {
        token: customer.token,
      });
      assert.equal(receipt.status, 200);
      assert.equal(await stockOf(t, product.id), 4);
    });

    it('lets an admin pay and cancel a customer order', async () => {
      const paid = await orderIn(t, 'pending');
      assert.equal(
        (await t.request('POST', `/api/orders/${paid.order.id}/pay`, { token: t.adminToken })).body.status,
        'paid',
      );
      const cancelled = await orderIn(t, 'pending');
      assert.equal(
        (await t.request('POST', `/api/orders/${cancelled.order.id}/cancel`, { token: t.adminToken })).body.status,
        'cancelled',
      );
    });

    it('refuses a refund by the customer with 403 and leaves the order paid', async () => {
      const { order, customer, product } = await orderIn(t, 'paid');
      const stockBefore = await stockOf(t, product.id);
      const res = await t.request('POST', `/api/orders/${order.id}/refund`, { token: customer.token });
      assert.equal(res.status, 403);
      assert.equal(res.body.error.code, 'FORBIDDEN');
      assert.equal((await t.request('GET', `/api/orders/${order.id}`, { token: customer.token })).body.status, 'paid');
      assert.equal(await stockOf(t, product.id), stockBefore);
    });

    it("treats actions on another user's order as 404, and anonymous ones as 401", async () => {
      const { order } = await orderIn(t, 'pending');
      const stranger = await t.createUser();
      for (const action of ['pay', 'cancel', 'refund']) {
        const res = await t.request('POST', `/api/orders/${order.id}/${action}`, { token: stranger.token });
        assert.equal(res.status, 404, action);
        assert.equal((await t.request('POST', `/api/orders/${order.id}/${action}`)).status, 401, action);
        assert.equal(
          (await t.request('POST', `/api/orders/999999/${action}`, { token: t.adminToken })).status,
          404,
          action,
        );
        assert.equal((await t.request('POST', `/api/orders/x/${action}`, { token: t.adminToken })).status, 404, action);
      }
      assert.equal((await t.request('GET', `/api/orders/${order.id}`, { token: t.adminToken })).body.status, 'pending');
    });

    describe('GET /api/orders/{id}/receipt', () => {
      for (const status of ['paid', 'refunded'] as const) {
        it(`issues a receipt for a ${status} order`, async () => {
          const { order, customer, product } = await orderIn(t, status, { quantity: 2 });
          const read = (await t.request('GET', `/api/orders/${order.id}`, { token: customer.token })).body;
          const res = await t.request('GET', `/api/orders/${order.id}/receipt`, { token: customer.token });
          assert.equal(res.status, 200);
          assert.match(res.body.receiptNumber, /^R-\d{8}-\d{8}$/);
          assert.deepEqual(
            { ...res.body, receiptNumber: undefined },
            {
              receiptNumber: undefined,
              orderId: order.id,
              customerId: customer.id,
              items: [{ productId: product.id, name: product.name, quantity: 2, unitPrice: 12.5 }],
              amount: 25,
              currency: 'USD',
              paidAt: read.paidAt,
              refundedAt: read.refundedAt,
              _links: { self: { href: `/api/orders/${order.id}/receipt` }, order: { href: `/api/orders/${order.id}` } },
            },
          );
          const again = await t.request('GET', `/api/orders/${order.id}/receipt`, { token: t.adminToken });
          assert.equal(again.body.receiptNumber, res.body.receiptNumber);
        });
      }

      for (const status of ['pending', 'cancelled'] as const) {
        it(`is 409 INVALID_STATE for a ${status} order`, async () => {
          const { order, customer } = await orderIn(t, status);
          const res = await t.request('GET', `/api/orders/${order.id}/receipt`, { token: customer.token });
          assert.equal(res.status, 409);
          assert.equal(res.body.error.code, 'INVALID_STATE');
          assert.match(res.body.error.message, new RegExp(status));
        });
      }

      it("reads another user's receipt as 404", async () => {
        const { order } = await orderIn(t, 'paid');
        const stranger = await t.createUser();
        assert.equal(
          (await t.request('GET', `/api/orders/${order.id}/receipt`, { token: stranger.token })).status,
          404,
        );
      });
    });
  });
}
