import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

const VALID = { name: 'Chef Knife', category: 'kitchen', price: 79, stock: 15 };

for (const dialect of DIALECTS) {
  describe(`products admin writes (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let userToken: string;
    before(async () => {
      t = await startTestServer(dialect);
      userToken = (await t.createUser()).token;
    });
    after(() => t?.close());

    const create = async (body: Record<string, unknown> = VALID) => {
      const res = await t.request('POST', '/api/products', { token: t.adminToken, body });
      assert.equal(res.status, 201, res.text);
      return res.body as Record<string, unknown> & { id: number };
    };
    const fieldsOf = (body: { error: { details: { field: string }[] } }) => body.error.details.map((d) => d.field);

    describe('POST /api/products', () => {
      it('creates with 201, Location and the representation; image and description default to null', async () => {
        const res = await t.request('POST', '/api/products', {
          token: t.adminToken,
          body: { ...VALID, name: '  Chef Knife  ', price: 79.5 },
        });
        assert.equal(res.status, 201);
        assert.equal(res.headers.get('location'), `/api/products/${res.body.id}`);
        assert.equal(res.body.name, 'Chef Knife');
        assert.equal(res.body.price, 79.5);
        assert.equal(res.body.stock, 15);
        assert.equal(res.body.image, null);
        assert.equal(res.body.description, null);
        assert.equal(res.body.created_at, res.body.updatedAt);
        const stored = await t.server.db
          .selectFrom('products')
          .selectAll()
          .where('id', '=', res.body.id)
          .executeTakeFirstOrThrow();
        assert.equal(Number(stored.price_cents), 7950);
        assert.deepEqual((await t.request('GET', res.headers.get('location')!)).body, res.body);
      });

      it('stores prices that are not exact floats as exact cents', async () => {
        for (const [price, cents] of [
          [0.07, 7],
          [0.29, 29],
          [19.99, 1999],
          [0, 0],
          [100_000_000, 10_000_000_000],
        ] as const) {
          const body = await create({ ...VALID, price });
          assert.equal(body.price, price);
          const row = await t.server.db
            .selectFrom('products')
            .select('price_cents')
            .where('id', '=', body.id)
            .executeTakeFirstOrThrow();
          assert.equal(Number(row.price_cents), cents);
        }
      });

      it('answers 422 VALIDATION_ERROR naming each bad field', async () => {
        const cases: [Record<string, unknown>, string][] = [
          [{ ...VALID, name: '' }, 'name'],
          [{ ...VALID, name: '   ' }, 'name'],
          [{ ...VALID, name: 'x'.repeat(201) }, 'name'],
          [{ ...VALID, category: '' }, 'category'],
          [{ ...VALID, category: 'x'.repeat(101) }, 'category'],
          [{ ...VALID, price: -0.01 }, 'price'],
          [{ ...VALID, price: 1.005 }, 'price'],
          [{ ...VALID, price: 19.999 }, 'price'],
          [{ ...VALID, price: '19.99' }, 'price'],
          [{ ...VALID, price: 100_000_000.01 }, 'price'],
          [{ ...VALID, stock: -1 }, 'stock'],
          [{ ...VALID, stock: 1.5 }, 'stock'],
          [{ ...VALID, stock: '3' }, 'stock'],
          [{ ...VALID, image: 'not a url' }, 'image'],
          [{ ...VALID, image: 'ftp://files.example.com/a.png' }, 'image'],
          [{ ...VALID, image: 'javascript:alert(1)' }, 'image'],
          [{ ...VALID, description: 'x'.repeat(10_001) }, 'description'],
          [{ ...VALID, colour: 'red' }, 'colour'],
          [{ ...VALID, id: 5 }, 'id'],
          [{ ...VALID, created_at: '2020-01-01T00:00:00.000Z' }, 'created_at'],
        ];
        for (const [body, field] of cases) {
          const res = await t.request('POST', '/api/products', { token: t.adminToken, body });
          assert.equal(res.status, 422, JSON.stringify(body).slice(0, 80));
          assert.equal(res.body.error.code, 'VALIDATION_ERROR');
          assert.ok(fieldsOf(res.body).includes(field), `${field}: ${JSON.stringify(res.body.error.details)}`);
        }
      });

      it('answers 422 naming every missing required field', async () => {
        const res = await t.request('POST', '/api/products', { token: t.adminToken, body: {} });
        assert.equal(res.status, 422);
        assert.deepEqual(fieldsOf(res.body).sort(), ['category', 'name', 'price', 'stock']);
      });

      it('accepts an http(s) image URL, a null image and a long description', async () => {
        const body = await create({
          ...VALID,
          image: 'http://img.example.com/k.png?w=2',
          description: 'x'.repeat(10_000),
        });
        assert.equal(body.image, 'http://img.example.com/k.png?w=2');
        assert.equal((await create({ ...VALID, image: null, description: null })).image, null);
      });

      it('answers 401 without a token and 403 for a non-admin, creating nothing', async () => {
        const before = await t.server.db
          .selectFrom('products')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow();
        const anonymous = await t.request('POST', '/api/products', { body: VALID });
        assert.equal(anonymous.status, 401);
        assert.equal(anonymous.body.error.code, 'UNAUTHORIZED');
        const user = await t.request('POST', '/api/products', { token: userToken, body: VALID });
        assert.equal(user.status, 403);
        assert.equal(user.body.error.code, 'FORBIDDEN');
        const after = await t.server.db
          .selectFrom('products')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow();
        assert.equal(Number(after.n), Number(before.n));
      });
    });

    describe('PUT and PATCH /api/products/{id}', () => {
      it('PUT replaces every field: absent image and description become null', async () => {
        const { id } = await create({ ...VALID, image: 'https://img.example.com/a.png', description: 'Sharp' });
        const res = await t.request('PUT', `/api/products/${id}`, {
          token: t.adminToken,
          body: { name: 'Bread Knife', category: 'kitchen', price: 24.5, stock: 3 },
        });
        assert.equal(res.status, 200);
        assert.equal(res.body.name, 'Bread Knife');
        assert.equal(res.body.price, 24.5);
        assert.equal(res.body.image, null);
        assert.equal(res.body.description, null);
        const missing = await t.request('PUT', `/api/products/${id}`, {
          token: t.adminToken,
          body: { name: 'Only a name' },
        });
        assert.equal(missing.status, 422);
        assert.deepEqual(fieldsOf(missing.body).sort(), ['category', 'price', 'stock']);
      });

      it('PATCH changes only the fields sent, and {} changes nothing', async () => {
        const created = await create({ ...VALID, description: 'Keep me' });
        const res = await t.request('PATCH', `/api/products/${created.id}`, {
          token: t.adminToken,
          body: { price: 81.25, stock: 0 },
        });
        assert.equal(res.status, 200);
        assert.equal(res.body.price, 81.25);
        assert.equal(res.body.stock, 0);
        assert.equal(res.body.name, created.name);
        assert.equal(res.body.description, 'Keep me');
        const empty = await t.request('PATCH', `/api/products/${created.id}`, { token: t.adminToken, body: {} });
        assert.equal(empty.status, 200);
        assert.equal(empty.body.updatedAt, res.body.updatedAt);
        const cleared = await t.request('PATCH', `/api/products/${created.id}`, {
          token: t.adminToken,
          body: { description: null },
        });
        assert.equal(cleared.body.description, null);
      });

      it('answers 422 naming the field for bad values and read-only fields', async () => {
        const { id } = await create();
        for (const [body, field] of [
          [{ price: 0.001 }, 'price'],
          [{ stock: -3 }, 'stock'],
          [{ name: '' }, 'name'],
          [{ image: 'nope' }, 'image'],
          [{ created_at: '2020-01-01T00:00:00.000Z' }, 'created_at'],
          [{ updatedAt: '2020-01-01T00:00:00.000Z' }, 'updatedAt'],
        ] as const) {
          for (const method of ['PATCH', 'PUT']) {
            const full = method === 'PUT' ? { ...VALID, ...body } : body;
            const res = await t.request(method, `/api/products/${id}`, { token: t.adminToken, body: full });
            assert.equal(res.status, 422, `${method} ${JSON.stringify(body)}`);
            assert.ok(fieldsOf(res.body).includes(field), `${method} ${field}: ${res.text}`);
          }
        }
      });

      it('answers 401, 403 and 404 as it should', async () => {
        const { id } = await create();
        assert.equal((await t.request('PATCH', `/api/products/${id}`, { body: { stock: 1 } })).status, 401);
        assert.equal(
          (await t.request('PATCH', `/api/products/${id}`, { token: userToken, body: { stock: 1 } })).status,
          403,
        );
        assert.equal((await t.request('PUT', `/api/products/${id}`, { token: userToken, body: VALID })).status, 403);
        assert.equal((await t.request('GET', `/api/products/${id}`)).body.stock, VALID.stock);
        for (const missing of ['999999', 'abc', '0']) {
          assert.equal(
            (await t.request('PATCH', `/api/products/${missing}`, { token: t.adminToken, body: { stock: 1 } })).status,
            404,
          );
          assert.equal(
            (await t.request('PUT', `/api/products/${missing}`, { token: t.adminToken, body: VALID })).status,
            404,
          );
        }
      });
    });

    describe('If-Match', () => {
      it('lets a matching If-Match through; a stale one is 412 for PUT, PATCH and DELETE and changes nothing', async () => {
        const { id } = await create();
        const etag = (await t.request('GET', `/api/products/${id}`)).headers.get('etag')!;
        const ok = await t.request('PATCH', `/api/products/${id}`, {
          token: t.adminToken,
          body: { stock: 7 },
          headers: { 'if-match': etag },
        });
        assert.equal(ok.status, 200);
        for (const [method, body] of [
          ['PATCH', { stock: 8 }],
          ['PUT', { ...VALID, stock: 8 }],
          ['DELETE', undefined],
        ] as const) {
          const stale = await t.request(method, `/api/products/${id}`, {
            token: t.adminToken,
            body,
            headers: { 'if-match': etag },
          });
          assert.equal(stale.status, 412, method);
          assert.equal(stale.body.error.code, 'PRECONDITION_FAILED');
        }
        const current = await t.request('GET', `/api/products/${id}`);
        assert.equal(current.body.stock, 7);
        const deleted = await t.request('DELETE', `/api/products/${id}`, {
          token: t.adminToken,
          headers: { 'if-match': current.headers.get('etag')! },
        });
        assert.equal(deleted.status, 204);
      });
    });

    describe('DELETE /api/products/{id}', () => {
      it('answers 204 with an empty body, then 404', async () => {
        const { id } = await create();
        const res = await t.request('DELETE', `/api/products/${id}`, { token: t.adminToken });
        assert.equal(res.status, 204);
        assert.equal(res.text, '');
        assert.equal((await t.request('GET', `/api/products/${id}`)).status, 404);
        assert.equal((await t.request('DELETE', `/api/products/${id}`, { token: t.adminToken })).status, 404);
        assert.equal((await t.request('DELETE', '/api/products/abc', { token: t.adminToken })).status, 404);
      });

      it('answers 401 and 403 for callers who are not admins', async () => {
        const { id } = await create();
        assert.equal((await t.request('DELETE', `/api/products/${id}`)).status, 401);
        assert.equal((await t.request('DELETE', `/api/products/${id}`, { token: userToken })).status, 403);
        assert.equal((await t.request('GET', `/api/products/${id}`)).status, 200);
      });

      it('answers 409 CONFLICT for a product that appears in an order, and keeps it', async () => {
        const { id } = await create();
        const customer = await t.createUser();
        const stamp = new Date().toISOString();
        const order = await t.server.db
          .insertInto('orders')
          .values({
            customer_id: customer.id,
            status: 'paid',
            amount_cents: 7900,
            currency: 'USD',
            created_at: stamp,
            updated_at: stamp,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        await t.server.db
          .insertInto('order_items')
          .values({ order_id: order.id, product_id: id, name: VALID.name, quantity: 1, unit_price_cents: 7900 })
          .execute();
        const res = await t.request('DELETE', `/api/products/${id}`, { token: t.adminToken });
        assert.equal(res.status, 409);
        assert.equal(res.body.error.code, 'CONFLICT');
        assert.equal((await t.request('GET', `/api/products/${id}`)).status, 200);
      });
    });
  });
}
