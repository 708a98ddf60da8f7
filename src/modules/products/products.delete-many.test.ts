import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { eventsAfter, feedEnd } from '../../../test/support/events.ts';
import { statementsOf } from '../../../test/support/statements-of.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

/**
 * A write by filter's `DELETE` is the products' list delete (products.writes-many.ts), the single
 * `DELETE`'s of many ids: its rows into the trash (each its own deletion), their events and their revisions
 * in a few statements per thousand rows, each row's trash row, event and revision those its single
 * `DELETE` writes, all or nothing.
 */
for (const dialect of DIALECTS) {
  describe(`products deleted as a list by a write by filter (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(dialect, { RATE_LIMIT_MAX: '100000000' });
    });
    after(() => t?.close());

    const createIn = async (category: string, count: number) => {
      const operations = Array.from({ length: count }, () => ({
        op: 'create',
        data: { name: `A ${category} product`, category, price: 10, stock: 1, description: 'same' },
      }));
      const res = await t.request('POST', '/api/v2/products/batch', { token: t.adminToken, body: { operations } });
      assert.equal(res.status, 200, res.text);
      return (res.body.results as { id: number }[]).map((r) => r.id);
    };
    const deleteWhere = (query: string, maxAffected: number) =>
      t.request('DELETE', `/api/v2/products?${query}`, {
        token: t.adminToken,
        headers: { prefer: `max-affected=${maxAffected}` },
      });
    const liveOf = async (ids: number[]) =>
      (await t.server.db.selectFrom('products').select('id').where('id', 'in', ids).orderBy('id').execute()).map(
        (row) => row.id,
      );
    const trashOf = (ids: number[]) =>
      t.server.db
        .selectFrom('trash_items')
        .selectAll()
        .where('resource', '=', 'product')
        .where(
          'item_key',
          'in',
          ids.map((id) => String(id)),
        )
        .orderBy('item_id')
        .execute();
    const revisionsOf = (ids: number[]) =>
      t.server.db
        .selectFrom('revisions')
        .selectAll()
        .where('resource', '=', 'product')
        .where('item_id', 'in', ids)
        .orderBy('id')
        .execute();

    it('deletes 50 rows, their trash rows, events and revisions in a bounded number of statements', async () => {
      const ids = await createIn('fifty', 50);
      const start = await feedEnd(t);
      const { result: res, statements } = await statementsOf(t.server.db, () => deleteWhere('category=fifty', 50));
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, { affected: 50 });
      assert.deepEqual(await liveOf(ids), []);
      const events = await eventsAfter(t, start, 50);
      assert.deepEqual(
        events.map((e) => [e.type, e.data.id]),
        ids.map((id) => ['product.deleted', id]),
      );
      assert.equal(new Set((await trashOf(ids)).map((item) => item.deletion_id)).size, 50, 'a deletion each');
      const deletes = (await revisionsOf(ids)).filter((revision) => revision.op === 'delete');
      assert.deepEqual(
        deletes.map((revision) => revision.item_id),
        ids,
      );
      // The read of the matches, the lock, then per thousand rows: the trash rows, the delete, the events'
      // locks (PostgreSQL), the events, the revisions; with the transaction's own. The single delete of
      // each ran about 9 a row.
      assert.ok(statements.length <= 12, statements.join('\n'));
    });

    it('deletes one product by id (the list of one) in fewer statements than its own path took', async () => {
      const [id] = await createIn('one', 1);
      const { result: res, statements } = await statementsOf(t.server.db, () =>
        t.request('DELETE', `/api/v2/products/${id}`, { token: t.adminToken }),
      );
      assert.equal(res.status, 204, res.text);
      assert.deepEqual(await liveOf([id!]), []);
      assert.equal((await trashOf([id!])).length, 1);
      assert.deepEqual(
        (await revisionsOf([id!])).map((revision) => revision.op),
        ['create', 'delete'],
      );
      // The transaction's own, the lock, the trash row, the delete, the event (PostgreSQL: its resource's lock
      // first, and the writer key's), the revision (one insert of the latest state). Its own path ran 9 (11):
      // the row read again to capture it, the latest state read before the revision's insert.
      assert.ok(statements.length <= (dialect.name === 'postgres' ? 9 : 7), statements.join('\n'));
    });

    it("writes each row's trash row, event and revision as its single DELETE does", async () => {
      const [single, ...set] = await createIn('equal', 4);
      const start = await feedEnd(t);
      const alone = await t.request('DELETE', `/api/v2/products/${single}`, { token: t.adminToken });
      assert.equal(alone.status, 204, alone.text);
      assert.deepEqual((await deleteWhere('category=equal', 3)).body, { affected: 3 });
      const events = await eventsAfter(t, start, 4);
      assert.deepEqual(
        events.map((e) => [e.type, e.data]),
        [single!, ...set].map((id) => ['product.deleted', { id }]),
      );
      // Field by field but the ids, times and request ids: the row as it was, who deleted it, its place.
      const without = (text: string, ...keys: string[]) => {
        const value = JSON.parse(text) as Record<string, unknown>;
        for (const key of keys) delete value[key];
        return value;
      };
      const trashShape = async (id: number) => {
        const [item, ...more] = await trashOf([id]);
        assert.equal(more.length, 0);
        const { item_key, item_id, deletion_id, deleted_at, row_data, ...rest } = item!;
        assert.deepEqual([item_key, Number(item_id)], [String(id), id]);
        assert.ok(deletion_id && deleted_at);
        assert.equal(JSON.parse(row_data).id, id);
        return { ...rest, row_data: without(row_data, 'id', 'created_at', 'updated_at') };
      };
      const revisionShape = async (id: number) => {
        const [created, deleted, ...more] = await revisionsOf([id]);
        assert.equal(more.length, 0);
        assert.equal(created!.op, 'create');
        assert.equal(deleted!.state, created!.state, 'a delete keeps the state of the revision before it');
        assert.ok(deleted!.request_id);
        const { id: rev, item_id, at, request_id, state, ...rest } = deleted!;
        assert.deepEqual(
          [Number(item_id), rev > created!.id, typeof at, typeof request_id],
          [id, true, 'string', 'string'],
        );
        return { ...rest, state: without(state, 'id', 'createdAt', 'updatedAt') };
      };
      const expected = { trash: await trashShape(single!), revision: await revisionShape(single!) };
      assert.equal(expected.revision.op, 'delete');
      for (const id of set)
        assert.deepEqual({ trash: await trashShape(id), revision: await revisionShape(id) }, expected, `product ${id}`);
    });

    it('stops the whole write with 409 when a product appears in an order, writing nothing', async () => {
      const ids = await createIn('ordered', 3);
      const customer = await t.createUser();
      const stamp = new Date().toISOString();
      const order = await t.server.db
        .insertInto('orders')
        .values({
          customer_id: customer.id,
          status: 'paid',
          amount_cents: 10,
          currency: 'USD',
          created_at: stamp,
          updated_at: stamp,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await t.server.db
        .insertInto('order_items')
        .values({ order_id: order.id, product_id: ids[2]!, name: 'x', quantity: 1, unit_price_cents: 10 })
        .execute();
      const revisions = (await revisionsOf(ids)).length;
      const start = await feedEnd(t);
      const res = await deleteWhere('category=ordered', 3);
      assert.equal(res.status, 409, res.text);
      assert.equal(res.body.error.message, 'A product that appears in orders cannot be deleted');
      assert.deepEqual(await liveOf(ids), ids);
      assert.deepEqual(await trashOf(ids), []);
      assert.deepEqual(await eventsAfter(t, start, 0), []);
      assert.equal((await revisionsOf(ids)).length, revisions);
    });

    it('restores a row deleted by filter alone (each row is its own deletion)', async () => {
      const ids = await createIn('restorable', 3);
      assert.deepEqual((await deleteWhere('category=restorable', 3)).body, { affected: 3 });
      const res = await t.request('POST', `/api/v2/products/${ids[1]}/restore`, { token: t.adminToken });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.id, ids[1]);
      assert.deepEqual(await liveOf(ids), [ids[1]]);
      assert.deepEqual(
        (await trashOf(ids)).map((item) => Number(item.item_id)),
        [ids[0], ids[2]],
      );
      const listed = await t.request('GET', '/api/v2/products?category=restorable', { token: t.adminToken });
      assert.equal(listed.body.pagination.total, 1);
      assert.equal((await revisionsOf([ids[1]!])).at(-1)!.op, 'restore');
    });

    it('deletes more than a chunk of rows (1,000) in one request', { timeout: 120_000 }, async () => {
      const ids = [...(await createIn('chunked', 1000)), ...(await createIn('chunked', 5))];
      const start = await feedEnd(t);
      const res = await deleteWhere('category=chunked', 1005);
      assert.deepEqual(res.body, { affected: 1005 });
      assert.deepEqual(await liveOf(ids), []);
      assert.equal(new Set((await trashOf(ids)).map((item) => item.deletion_id)).size, 1005);
      const events = await eventsAfter(t, start, 1005);
      assert.equal(new Set(events.map((e) => e.data.id)).size, 1005);
      const deletes = (await revisionsOf(ids)).filter((revision) => revision.op === 'delete');
      assert.equal(deletes.length, 1005);
    });
  });
}
