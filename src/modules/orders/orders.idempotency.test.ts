import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';
import { QUIET_ENV, createProduct, orderIn, startInstanceOn, stockOf } from '../../../test/support/orders.ts';

let keyCounter = 0;
const newKey = () => `key-${process.pid}-${Date.now()}-${(keyCounter += 1)}`;

for (const dialect of DIALECTS) {
  describe(`Idempotency-Key on orders (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(dialect, QUIET_ENV);
    });
    after(() => t?.close());

    const countOrdersOf = async (customerId: number) =>
      (await t.server.db.selectFrom('orders').select('id').where('customer_id', '=', customerId).execute()).length;

    it('replays the first 201 (status, body, Location) for the same key and body, without ordering twice', async () => {
      const customer = await t.createUser();
      const product = await createProduct(t, { stock: 10 });
      const key = newKey();
      const send = (body: unknown) =>
        t.request('POST', '/api/orders', { token: customer.token, body, headers: { 'idempotency-key': key } });
      const first = await send({ items: [{ productId: product.id, quantity: 2 }] });
      assert.equal(first.status, 201);
      assert.equal(first.headers.get('idempotent-replayed'), null);
      // Same body with its keys in another order is the same request.
      const second = await send({ items: [{ quantity: 2, productId: product.id }] });
      assert.equal(second.status, 201);
      assert.equal(second.headers.get('idempotent-replayed'), 'true');
      assert.equal(second.headers.get('location'), first.headers.get('location'));
      assert.deepEqual(second.body, first.body);
      assert.equal(await stockOf(t, product.id), 8);
      assert.equal(await countOrdersOf(customer.id), 1);
    });

    it('treats one key as one operation under /api, /api/v1 and /api/v2', async () => {
      const customer = await t.createUser();
      const product = await createProduct(t, { stock: 10 });
      const key = newKey();
      const body = { items: [{ productId: product.id, quantity: 1 }] };
      const first = await t.request('POST', '/api/orders', {
        token: customer.token,
        body,
        headers: { 'idempotency-key': key },
      });
      for (const prefix of ['/api/v1', '/api/v2']) {
        const again = await t.request('POST', `${prefix}/orders`, {
          token: customer.token,
          body,
          headers: { 'idempotency-key': key },
        });
        assert.equal(again.status, 201, prefix);
        assert.equal(again.headers.get('idempotent-replayed'), 'true', prefix);
        assert.equal(again.body.id, first.body.id);
      }
      assert.equal(await stockOf(t, product.id), 9);
    });

    it('answers 422 IDEMPOTENCY_KEY_REUSED for the same key with a different body, and acts not at all', async () => {
      const customer = await t.createUser();
      const product = await createProduct(t, { stock: 10 });
      const key = newKey();
      const send = (quantity: number) =>
        t.request('POST', '/api/orders', {
          token: customer.token,
          body: { items: [{ productId: product.id, quantity }] },
          headers: { 'idempotency-key': key },
        });
      assert.equal((await send(1)).status, 201);
      const reused = await send(3);
      assert.equal(reused.status, 422);
      assert.equal(reused.body.error.code, 'IDEMPOTENCY_KEY_REUSED');
      assert.equal(await stockOf(t, product.id), 9);
    });

    it('scopes keys per caller: another user with the same key gets their own order', async () => {
      const product = await createProduct(t, { stock: 10 });
      const key = newKey();
      const body = { items: [{ productId: product.id, quantity: 1 }] };
      const [a, b] = [await t.createUser(), await t.createUser()];
      const first = await t.request('POST', '/api/orders', {
        token: a.token,
        body,
        headers: { 'idempotency-key': key },
      });
      const second = await t.request('POST', '/api/orders', {
        token: b.token,
        body,
        headers: { 'idempotency-key': key },
      });
      assert.equal(second.status, 201);
      assert.notEqual(second.body.id, first.body.id);
      assert.equal(second.headers.get('idempotent-replayed'), null);
    });

    it('replays an order action, and refuses the same key on another order', async () => {
      const one = await orderIn(t, 'pending');
      const key = newKey();
      const pay = (id: number) =>
        t.request('POST', `/api/orders/${id}/pay`, { token: one.customer.token, headers: { 'idempotency-key': key } });
      const first = await pay(one.order.id);
      assert.equal(first.status, 200);
      // Without the key a second pay is a 409; with it, the client sees its first success again.
      const replay = await pay(one.order.id);
      assert.equal(replay.status, 200);
      assert.equal(replay.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(replay.body, first.body);
      assert.equal(
        (await t.request('POST', `/api/orders/${one.order.id}/pay`, { token: one.customer.token })).status,
        409,
      );

      const other = await t.request('POST', '/api/orders', {
        token: one.customer.token,
        body: { items: [{ productId: one.product.id, quantity: 1 }] },
      });
      const misuse = await pay(other.body.id);
      assert.equal(misuse.status, 422);
      assert.equal(misuse.body.error.code, 'IDEMPOTENCY_KEY_REUSED');
      assert.equal(
        (await t.request('GET', `/api/orders/${other.body.id}`, { token: one.customer.token })).body.status,
        'pending',
      );
    });

    it('stores no failure: after a 409 OUT_OF_STOCK the same key acts again once stock is back', async () => {
      const customer = await t.createUser();
      const product = await createProduct(t, { stock: 0 });
      const key = newKey();
      const send = () =>
        t.request('POST', '/api/orders', {
          token: customer.token,
          body: { items: [{ productId: product.id, quantity: 1 }] },
          headers: { 'idempotency-key': key },
        });
      assert.equal((await send()).status, 409);
      await t.server.db.updateTable('products').set({ stock: 1 }).where('id', '=', product.id).execute();
      const retry = await send();
      assert.equal(retry.status, 201);
      assert.equal(retry.headers.get('idempotent-replayed'), null);
    });

    it('lets only one of 20 concurrent requests with one key act; the others replay or get 409 CONFLICT', async () => {
      const customer = await t.createUser();
      const product = await createProduct(t, { stock: 100 });
      const key = newKey();
      const responses = await Promise.all(
        Array.from({ length: 20 }, () =>
          t.request('POST', '/api/orders', {
            token: customer.token,
            body: { items: [{ productId: product.id, quantity: 1 }] },
            headers: { 'idempotency-key': key },
          }),
        ),
      );
      const acted = responses.filter((r) => r.status === 201 && r.headers.get('idempotent-replayed') === null);
      assert.equal(acted.length, 1);
      for (const r of responses) {
        if (r.status === 201) assert.equal(r.body.id, acted[0]!.body.id);
        else assert.equal(r.body.error.code, 'CONFLICT', r.text);
      }
      assert.equal(await stockOf(t, product.id), 99);
      assert.equal(await countOrdersOf(customer.id), 1);
    });

    it('answers 422 naming the header for a malformed key', async () => {
      const customer = await t.createUser();
      const product = await createProduct(t, { stock: 10 });
      for (const key of ['x'.repeat(201), 'has space', 'tab\there']) {
        const res = await t.request('POST', '/api/orders', {
          token: customer.token,
          body: { items: [{ productId: product.id, quantity: 1 }] },
          headers: { 'idempotency-key': key },
        });
        assert.equal(res.status, 422, key);
        assert.equal(res.body.error.code, 'VALIDATION_ERROR');
        assert.ok(
          res.body.error.details.some((d: { field: string }) => d.field === 'idempotency-key'),
          res.text,
        );
      }
      assert.equal(await stockOf(t, product.id), 10);
    });

    it('holds across instances and restarts: a fresh server on the same database replays the stored response', async () => {
      const customer = await t.createUser();
      const product = await createProduct(t, { stock: 10 });
      const key = newKey();
      const body = { items: [{ productId: product.id, quantity: 1 }] };
      const first = await t.request('POST', '/api/orders', {
        token: customer.token,
        body,
        headers: { 'idempotency-key': key },
      });
      assert.equal(first.status, 201);
      for (let restart = 0; restart < 2; restart += 1) {
        const instance = await startInstanceOn(t);
        try {
          const replay = await instance.request('POST', '/api/orders', {
            token: customer.token,
            body,
            headers: { 'idempotency-key': key },
          });
          assert.equal(replay.status, 201);
          assert.equal(replay.headers.get('idempotent-replayed'), 'true');
          assert.deepEqual(replay.body, first.body);
        } finally {
          await instance.close();
        }
      }
      assert.equal(await stockOf(t, product.id), 9);
    });

    it('forgets a key after 24 hours: the same key then places a new order', async () => {
      const customer = await t.createUser();
      const product = await createProduct(t, { stock: 10 });
      const key = newKey();
      const send = () =>
        t.request('POST', '/api/orders', {
          token: customer.token,
          body: { items: [{ productId: product.id, quantity: 1 }] },
          headers: { 'idempotency-key': key },
        });
      const first = await send();
      const dayAgo = new Date(Date.now() - 24 * 60 * 60 * 1000 - 1000).toISOString();
      await t.server.db.updateTable('idempotency_keys').set({ created_at: dayAgo }).where('key', '=', key).execute();
      const later = await send();
      assert.equal(later.status, 201);
      assert.notEqual(later.body.id, first.body.id);
      assert.equal(later.headers.get('idempotent-replayed'), null);
    });
  });
}
