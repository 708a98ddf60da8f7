import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { errorCodes, gql, GRAPHQL_TEST_ENV } from '../../../test/support/graphql-test-client.ts';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { createProduct, stockOf } from '../../../test/support/orders.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

const ORDER = 'id customerId status amount currency createdAt updatedAt paidAt cancelledAt refundedAt';
const ITEMS = 'items { productId name quantity unitPrice product { id name price } }';
const CREATE = `mutation ($input: CreateOrderInput!, $key: String) { createOrder(input: $input, idempotencyKey: $key) { ${ORDER} ${ITEMS} } }`;
const act = (mutation: string) =>
  `mutation ($id: ID!, $key: String) { ${mutation}(id: $id, idempotencyKey: $key) { id status } }`;

type User = Awaited<ReturnType<TestServer['createUser']>>;

for (const dialect of DIALECTS) {
  describe(`orders GraphQL (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(dialect, GRAPHQL_TEST_ENV);
    });
    after(() => t?.close());

    async function placeOrder(customer: User, quantity = 2, stock = 10) {
      const product = await createProduct(t, { priceCents: 1250, stock });
      const res = await gql(t, CREATE, {
        variables: { input: { items: [{ productId: String(product.id), quantity }] } },
        token: customer.token,
      });
      assert.equal(res.body.errors, undefined, res.text);
      return { product, order: res.body.data.createOrder as Record<string, unknown> & { id: string } };
    }

    describe('reads', () => {
      it("answers the caller's order as v2's REST object without _links, with its lines' products", async () => {
        const customer = await t.createUser();
        const { product, order } = await placeOrder(customer);
        const res = await gql(t, `query ($id: ID!) { order(id: $id) { ${ORDER} ${ITEMS} } }`, {
          variables: { id: order.id },
          token: customer.token,
        });
        assert.equal(res.body.errors, undefined, res.text);
        const rest = await t.request('GET', `/api/v2/orders/${order.id}`, { token: customer.token });
        const { _links, items, ...view } = rest.body;
        assert.ok(_links);
        const { items: gqlItems, ...gqlOrder } = res.body.data.order;
        assert.deepEqual(gqlOrder, { ...view, id: String(view.id), customerId: String(view.customerId) });
        assert.equal(gqlOrder.amount, 25);
        assert.deepEqual(gqlItems, [
          {
            productId: String(product.id),
            name: product.name,
            quantity: 2,
            unitPrice: 12.5,
            product: { id: String(product.id), name: product.name, price: 12.5 },
          },
        ]);
        assert.equal(items.length, 1);
      });

      it("reads another customer's order as null (REST's 404), and lists only the caller's orders; an admin sees all", async () => {
        const owner = await t.createUser();
        const other = await t.createUser();
        const { order } = await placeOrder(owner);
        const read = (token: string) =>
          gql(t, 'query ($id: ID!) { order(id: $id) { id } }', { variables: { id: order.id }, token });
        const refused = await read(other.token);
        assert.equal(refused.body.errors, undefined, refused.text);
        assert.deepEqual(refused.body.data, { order: null });
        assert.deepEqual((await read(t.adminToken)).body.data, { order: { id: order.id } });
        const list = await gql(t, '{ orders(limit: 100) { id customerId } }', { token: other.token });
        assert.deepEqual(list.body.data.orders, []);
        const all = await gql(t, '{ orders(limit: 100) { id } }', { token: t.adminToken });
        assert.ok(all.body.data.orders.some((o: { id: string }) => o.id === order.id));
        const named = await gql(t, `{ orders(filter: { customerId: { eq: ${owner.id} } }) { id } }`, {
          token: other.token,
        });
        assert.deepEqual(errorCodes(named), ['FORBIDDEN']);
        assert.deepEqual(errorCodes(await gql(t, '{ orders { id } }')), ['UNAUTHENTICATED']);
      });

      it("filters and orders the caller's orders as the REST list", async () => {
        const customer = await t.createUser();
        const first = await placeOrder(customer, 1);
        const second = await placeOrder(customer, 3);
        await gql(t, act('payOrder'), { variables: { id: first.order.id }, token: customer.token });
        const paid = await gql(t, '{ orders(filter: { status: { eq: "paid" } }) { id status } }', {
          token: customer.token,
        });
        assert.deepEqual(paid.body.data.orders, [{ id: first.order.id, status: 'paid' }]);
        const byAmount = await gql(t, '{ orders(orderBy: [AMOUNT_DESC]) { id amount } }', { token: customer.token });
        assert.deepEqual(
          byAmount.body.data.orders.map((o: { id: string }) => o.id),
          [second.order.id, first.order.id],
        );
      });

      it("shows the customer's e-mail to that customer and to admins only (DECISIONS §5)", async () => {
        const customer = await t.createUser();
        const { order } = await placeOrder(customer);
        const email = (token: string) =>
          gql(t, 'query ($id: ID!) { order(id: $id) { customer { id email } } }', {
            variables: { id: order.id },
            token,
          });
        const own = await email(customer.token);
        assert.equal(own.body.data.order.customer.email, customer.user.email);
        const admin = await email(t.adminToken);
        assert.equal(admin.body.data.order.customer.email, customer.user.email);
        const someone = await t.createUser();
        const list = await gql(t, '{ orders(limit: 100) { customer { id email } } }', { token: t.adminToken });
        assert.ok(list.body.data.orders.every((o: { customer: { email: string } }) => o.customer.email !== ''));
        assert.equal((await email(someone.token)).body.data.order, null);
      });
    });

    describe('mutations', () => {
      it('places an order taking the stock; not enough stock is OUT_OF_STOCK with details per item, changing nothing', async () => {
        const customer = await t.createUser();
        const { product, order } = await placeOrder(customer, 4, 5);
        assert.equal(order.status, 'pending');
        assert.equal(order.customerId, String(customer.id));
        assert.equal(await stockOf(t, product.id), 1);
        const short = await gql(t, CREATE, {
          variables: { input: { items: [{ productId: String(product.id), quantity: 2 }] } },
          token: customer.token,
        });
        assert.deepEqual(errorCodes(short), ['OUT_OF_STOCK']);
        assert.equal(short.body.data, null);
        const details = short.body.errors[0].extensions.details as { field: string; message: string }[];
        assert.ok(details.length >= 1 && details.every((d) => d.field && d.message), JSON.stringify(details));
        assert.equal(await stockOf(t, product.id), 1);
        const empty = await gql(t, CREATE, { variables: { input: { items: [] } }, token: customer.token });
        assert.deepEqual(errorCodes(empty), ['BAD_USER_INPUT']);
        const anonymous = await gql(t, CREATE, {
          variables: { input: { items: [{ productId: String(product.id), quantity: 1 }] } },
        });
        assert.deepEqual(errorCodes(anonymous), ['UNAUTHENTICATED']);
      });

      it('pays, cancels and refunds through the state machine; a wrong state is INVALID_STATE naming the status', async () => {
        const customer = await t.createUser();
        const { product, order } = await placeOrder(customer, 2, 10);
        const run = (mutation: string, token: string, id = order.id) =>
          gql(t, act(mutation), { variables: { id }, token });
        const paid = await run('payOrder', customer.token);
        assert.deepEqual(paid.body.data, { payOrder: { id: order.id, status: 'paid' } });
        const cancel = await run('cancelOrder', customer.token);
        assert.deepEqual(errorCodes(cancel), ['INVALID_STATE']);
        assert.match(cancel.body.errors[0].extensions.details[0].message, /is paid/);
        assert.deepEqual(errorCodes(await run('refundOrder', customer.token)), ['FORBIDDEN']);
        const refunded = await run('refundOrder', t.adminToken);
        assert.deepEqual(refunded.body.data, { refundOrder: { id: order.id, status: 'refunded' } });
        assert.equal(await stockOf(t, product.id), 10);
        const other = await placeOrder(customer, 1, 3);
        const cancelled = await run('cancelOrder', customer.token, other.order.id);
        assert.deepEqual(cancelled.body.data, { cancelOrder: { id: other.order.id, status: 'cancelled' } });
        assert.equal(await stockOf(t, other.product.id), 3);
        const stranger = await t.createUser();
        assert.deepEqual(errorCodes(await run('payOrder', stranger.token)), ['NOT_FOUND']);
        assert.deepEqual(errorCodes(await run('payOrder', customer.token, 'x')), ['NOT_FOUND']);
      });

      it('replays the first result for the same idempotencyKey and arguments without acting again; other arguments are IDEMPOTENCY_KEY_REUSED', async () => {
        const customer = await t.createUser();
        const product = await createProduct(t, { priceCents: 500, stock: 10 });
        const input = { items: [{ productId: String(product.id), quantity: 3 }] };
        const place = (key: string, quantity = 3) =>
          gql(t, CREATE, {
            variables: { input: { items: [{ ...input.items[0], quantity }] }, key },
            token: customer.token,
          });
        const first = await place('order-key-1');
        const replay = await place('order-key-1');
        assert.equal(first.body.errors, undefined, first.text);
        assert.deepEqual(replay.body.data, first.body.data);
        assert.equal(await stockOf(t, product.id), 7);
        const reused = await place('order-key-1', 1);
        assert.deepEqual(errorCodes(reused), ['IDEMPOTENCY_KEY_REUSED']);
        assert.equal(reused.body.errors[0].extensions.details[0].field, 'idempotencyKey');
        assert.equal(await stockOf(t, product.id), 7);
        const id = first.body.data.createOrder.id;
        const pay = () => gql(t, act('payOrder'), { variables: { id, key: 'pay-key' }, token: customer.token });
        assert.deepEqual((await pay()).body.data, { payOrder: { id, status: 'paid' } });
        const payAgain = await pay();
        assert.equal(payAgain.body.errors, undefined, 'a replay, not INVALID_STATE');
        assert.deepEqual(payAgain.body.data, { payOrder: { id, status: 'paid' } });
        const malformed = await gql(t, act('cancelOrder'), {
          variables: { id, key: 'has space' },
          token: customer.token,
        });
        assert.deepEqual(errorCodes(malformed), ['BAD_USER_INPUT']);
        assert.equal(malformed.body.errors[0].extensions.details[0].field, 'idempotencyKey');
      });
    });
  });
}
