import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fastJsonPatch, { type Operation } from 'fast-json-patch';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

const PRODUCT = { name: 'Lamp', category: 'home', price: 12.5, stock: 5 };

interface Revision {
  rev: number;
  op: string;
  at: string;
  actor: { type: string; id: number | null };
  requestId: string | null;
  changes: Operation[];
}

/** Whether `changes` sets `path` to `value`. */
const sets = (changes: Operation[], path: string, value: unknown) =>
  changes.some((change) => change.path === path && 'value' in change && change.value === value);

for (const dialect of DIALECTS) {
  describe(`revisions (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;

    before(async () => {
      t = await startTestServer(dialect, { IMPORT_POLL_MS: '50' });
    });
    after(() => t?.close());

    const revisionsOf = async (path: string, token = t.adminToken): Promise<Revision[]> => {
      const res = await t.request('GET', `${path}/revisions?limit=100`, { token });
      assert.equal(res.status, 200, res.text);
      return res.body.data as Revision[];
    };
    const countRevisions = async () =>
      Number(
        (
          await t.server.db
            .selectFrom('revisions')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );

    /** Each revision's state: its patches applied in order from `{}` equal `GET .../revisions/{rev}`. */
    async function assertPatchesReproduce(path: string, revisions: Revision[]) {
      let state: Record<string, unknown> = {};
      for (const revision of [...revisions].reverse()) {
        state = fastJsonPatch.applyPatch(structuredClone(state), revision.changes, true, false).newDocument;
        const asWas = await t.request('GET', `${path}/revisions/${revision.rev}`, { token: t.adminToken });
        assert.equal(asWas.status, 200, asWas.text);
        assert.deepEqual(state, asWas.body, `rev ${revision.rev}`);
      }
    }

    it('every op of a product writes one revision, with the actor and the request id; patches from {} give each state', async () => {
      const created = await t.request('POST', '/api/v2/products', {
        token: t.adminToken,
        body: PRODUCT,
        headers: { 'x-request-id': 'rev-create-1' },
      });
      assert.equal(created.status, 201, created.text);
      const path = `/api/v2/products/${created.body.id}`;
      const etag = (await t.request('GET', path, { token: t.adminToken })).headers.get('etag')!;
      const updated = await t.request('PATCH', path, {
        token: t.adminToken,
        body: { price: 13 },
        headers: { 'if-match': etag, 'x-request-id': 'rev-update-1' },
      });
      assert.equal(updated.status, 200, updated.text);
      assert.equal((await t.request('DELETE', path, { token: t.adminToken })).status, 204);
      assert.equal((await t.request('POST', `${path}/restore`, { token: t.adminToken })).status, 200);

      const revisions = await revisionsOf(path);
      assert.deepEqual(
        revisions.map((r) => r.op),
        ['restore', 'delete', 'update', 'create'],
      );
      assert.deepEqual(revisions[3]!.actor, { type: 'user', id: 1 });
      assert.equal(revisions[3]!.requestId, 'rev-create-1');
      assert.equal(revisions[2]!.requestId, 'rev-update-1');
      assert.ok(sets(revisions[2]!.changes, '/price', 13));
      assert.deepEqual(revisions[1]!.changes, []);
      assert.deepEqual(revisions[0]!.changes, []);
      assert.ok(revisions[0]!.rev > revisions[1]!.rev);
      await assertPatchesReproduce(path, revisions);
      const asWas = await t.request('GET', `${path}/revisions/${revisions[3]!.rev}`, { token: t.adminToken });
      assert.equal(asWas.body.price, 12.5);
      assert.equal(asWas.body._links, undefined);
      assert.equal(asWas.body.deletedAt, undefined);
    });

    it('a write that fails or rolls back writes no revision', async () => {
      const before = await countRevisions();
      const product = await t.request('POST', '/api/v2/products', { token: t.adminToken, body: PRODUCT });
      const path = `/api/v2/products/${product.body.id}`;
      const stale = await t.request('PATCH', path, {
        token: t.adminToken,
        body: { price: 14 },
        headers: { 'if-match': '"stale"' },
      });
      assert.equal(stale.status, 412);
      const bad = await t.request('POST', '/api/v2/users/999999/posts', {
        token: t.adminToken,
        body: { title: 'T', content: 'C' },
      });
      assert.equal(bad.status, 404);
      // An atomic batch whose last operation fails: its first operations' writes, events and revisions roll back.
      const rolledBack = await t.request('POST', '/api/v2/products/batch', {
        token: t.adminToken,
        body: {
          operations: [
            { op: 'create', data: { ...PRODUCT, name: 'Rolled back' } },
            { op: 'update', id: product.body.id, data: { price: 99 } },
            { op: 'delete', id: 999_999 },
          ],
        },
      });
      assert.equal(rolledBack.status, 404, rolledBack.text);
      assert.equal(await countRevisions(), before + 1);
    });

    it('GraphQL, a batch and an import row each write a revision with their actor and request id', async () => {
      const alice = await t.createUser();
      const post = await t.request('POST', `/api/v2/users/${alice.id}/posts`, {
        token: alice.token,
        body: { title: 'T', content: 'C' },
      });
      const update = `mutation($id: ID!) { updatePost(id: $id, input: {title: "G"}) { id } }`;
      const res = await t.request('POST', '/graphql', {
        token: alice.token,
        body: { query: update, variables: { id: String(post.body.id) } },
        headers: { 'x-request-id': 'rev-graphql-1' },
      });
      assert.equal(res.body.errors, undefined, JSON.stringify(res.body));
      const [latest] = await revisionsOf(`/api/v2/posts/${post.body.id}`, alice.token);
      assert.deepEqual(
        [latest!.op, latest!.actor, latest!.requestId],
        ['update', { type: 'user', id: alice.id }, 'rev-graphql-1'],
      );
      assert.ok(sets(latest!.changes, '/title', 'G'));

      const batch = await t.request('POST', '/api/v2/products/batch', {
        token: t.adminToken,
        body: { operations: [{ op: 'create', data: { ...PRODUCT, name: 'Batched' } }] },
        headers: { 'x-request-id': 'rev-batch-1' },
      });
      assert.equal(batch.status, 200, batch.text);
      const batchedId = (
        await t.server.db.selectFrom('products').select('id').where('name', '=', 'Batched').executeTakeFirstOrThrow()
      ).id;
      const [batched] = await revisionsOf(`/api/v2/products/${batchedId}`);
      assert.deepEqual(
        [batched!.op, batched!.actor, batched!.requestId],
        ['create', { type: 'user', id: 1 }, 'rev-batch-1'],
      );

      const upload = await fetch(`${t.url}/api/v2/imports?resource=products&mode=create`, {
        method: 'POST',
        headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': 'text/csv' },
        body: 'name,category,price,stock,sku\nImported,imp,1.5,3,REV-IMP-1\n',
      });
      assert.equal(upload.status, 202);
      const job = (await upload.json()) as { id: number };
      let importedId: number | undefined;
      for (let i = 0; i < 200 && importedId === undefined; i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        importedId = (
          await t.server.db.selectFrom('products').select('id').where('sku', '=', 'REV-IMP-1').executeTakeFirst()
        )?.id;
      }
      const [imported] = await revisionsOf(`/api/v2/products/${importedId}`);
      assert.deepEqual(
        [imported!.op, imported!.actor, imported!.requestId],
        ['create', { type: 'user', id: 1 }, `import:${job.id}`],
      );
    });

    it('a user’s history: the user and admins only, never a password, and revisions of a trashed item stay readable', async () => {
      const alice = await t.createUser();
      const bob = await t.createUser();
      const path = `/api/v2/users/${alice.id}`;
      const own = await revisionsOf(path, alice.token);
      assert.equal(own[0]!.op, 'create');
      const state = await t.request('GET', `${path}/revisions/${own[0]!.rev}`, { token: alice.token });
      assert.equal(state.body.email, alice.user.email);
      for (const key of ['password', 'passwordHash', 'password_hash']) assert.equal(key in state.body, false);
      const stored = await t.server.db.selectFrom('revisions').select('state').execute();
      assert.ok(stored.every((row) => !/password/i.test(row.state)));
      assert.equal((await t.request('GET', `${path}/revisions`, { token: bob.token })).status, 403);
      assert.equal((await t.request('GET', `${path}/revisions/${own[0]!.rev}`, { token: bob.token })).status, 403);
      assert.equal((await t.request('GET', `${path}/revisions`)).status, 401);

      const post = await t.request('POST', `/api/v2/users/${alice.id}/posts`, {
        token: alice.token,
        body: { title: 'T', content: 'C' },
      });
      const postPath = `/api/v2/posts/${post.body.id}`;
      assert.equal((await t.request('GET', `${postPath}/revisions`, { token: bob.token })).status, 403);
      assert.equal((await t.request('DELETE', postPath, { token: alice.token })).status, 204);
      const trashed = await revisionsOf(postPath, alice.token);
      assert.deepEqual(
        trashed.map((r) => r.op),
        ['delete', 'create'],
      );
      assert.equal((await t.request('GET', `/api/v2/products/999999/revisions`, { token: t.adminToken })).status, 404);
    });

    it('an order’s stock change writes no product revision', async () => {
      const alice = await t.createUser();
      const product = await t.request('POST', '/api/v2/products', { token: t.adminToken, body: PRODUCT });
      const before = await revisionsOf(`/api/v2/products/${product.body.id}`);
      const order = await t.request('POST', '/api/v2/orders', {
        token: alice.token,
        body: { items: [{ productId: product.body.id, quantity: 2 }] },
      });
      assert.equal(order.status, 201, order.text);
      const stock = await t.request('GET', `/api/v2/products/${product.body.id}`, { token: t.adminToken });
      assert.equal(stock.body.stock, 3);
      assert.deepEqual(await revisionsOf(`/api/v2/products/${product.body.id}`), before);
    });

    it('the audit: admins only, newest first, filtered by actor, resource, op and time, 422 on bad values', async () => {
      const alice = await t.createUser();
      const post = await t.request('POST', `/api/v2/users/${alice.id}/posts`, {
        token: alice.token,
        body: { title: 'Audited', content: 'C' },
      });
      assert.equal((await t.request('GET', '/api/v2/audit', { token: alice.token })).status, 403);
      const mine = await t.request('GET', `/api/v2/audit?actorId=${alice.id}&resource=post&op=create`, {
        token: t.adminToken,
      });
      assert.equal(mine.status, 200, mine.text);
      assert.deepEqual(
        mine.body.data.map((e: { resource: string; itemId: number; op: string }) => [e.resource, e.itemId, e.op]),
        [['post', post.body.id, 'create']],
      );
      const all = await t.request('GET', '/api/v2/audit?limit=2', { token: t.adminToken });
      assert.equal(all.body.data.length, 2);
      assert.ok(all.body.data[0].rev > all.body.data[1].rev);
      const next = await t.request('GET', `/api/v2/audit?limit=2&cursor=${all.body.pagination.nextCursor}`, {
        token: t.adminToken,
      });
      assert.ok(next.body.data[0].rev < all.body.data[1].rev);
      const future = await t.request('GET', '/api/v2/audit?from=2999-01-01T00:00:00Z', { token: t.adminToken });
      assert.deepEqual(future.body.data, []);
      const past = await t.request('GET', '/api/v2/audit?to=2000-01-01T00:00:00Z', { token: t.adminToken });
      assert.deepEqual(past.body.data, []);
      for (const query of ['op=rename', 'resource=order', 'from=yesterday', 'actorId=x', 'limit=0', 'cursor=zzz']) {
        const bad = await t.request('GET', `/api/v2/audit?${query}`, { token: t.adminToken });
        assert.equal(bad.status, 422, `${query}: ${bad.text}`);
      }
    });

    it('the audit exports as NDJSON and CSV, every matching entry newest first, as the other lists do (§18)', async () => {
      const bob = await t.createUser();
      for (const title of ['One', 'Two', 'Three']) {
        await t.request('POST', `/api/v2/users/${bob.id}/posts`, { token: bob.token, body: { title, content: 'C' } });
      }
      const download = (query: string) =>
        fetch(`${t.url}/api/v2/audit?actorId=${bob.id}&resource=post&${query}`, {
          headers: { authorization: `Bearer ${t.adminToken}` },
        });
      const paged = await t.request('GET', `/api/v2/audit?actorId=${bob.id}&resource=post&limit=100`, {
        token: t.adminToken,
      });
      const ndjson = await download('format=ndjson&limit=1');
      assert.equal(ndjson.status, 200);
      assert.match(ndjson.headers.get('content-type')!, /^application\/x-ndjson/);
      const lines = (await ndjson.text())
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { rev: number });
      assert.deepEqual(
        lines.map((entry) => entry.rev),
        paged.body.data.map((entry: { rev: number }) => entry.rev),
      );
      assert.equal(lines.length, 3);
      const csv = await download('format=csv');
      assert.equal(csv.status, 200);
      const [header, ...rows] = (await csv.text()).trim().split(/\r?\n/);
      assert.ok(header!.split(',').includes('rev') && header!.split(',').includes('itemId'), header);
      assert.equal(rows.length, 3);
      assert.equal(
        (await fetch(`${t.url}/api/v2/audit?format=csv`, { headers: { authorization: `Bearer ${bob.token}` } })).status,
        403,
      );
    });

    it('restoring a revision: 428 without If-Match, 412 on a stale one, 409 for a field the item lost, else an update with op revert', async () => {
      const created = await t.request('POST', '/api/v2/products', { token: t.adminToken, body: PRODUCT });
      const path = `/api/v2/products/${created.body.id}`;
      const etagOf = async () => (await t.request('GET', path, { token: t.adminToken })).headers.get('etag')!;
      const changed = await t.request('PATCH', path, {
        token: t.adminToken,
        body: { price: 20, name: 'Lamp 2' },
        headers: { 'if-match': await etagOf() },
      });
      assert.equal(changed.status, 200, changed.text);
      const [, first] = await revisionsOf(path);
      const restorePath = `${path}/revisions/${first!.rev}/restore`;

      const required = await t.request('POST', restorePath, { token: t.adminToken });
      assert.equal(required.status, 428, required.text);
      assert.equal(required.body.error.code, 'PRECONDITION_REQUIRED');
      const stale = await t.request('POST', restorePath, { token: t.adminToken, headers: { 'if-match': '"stale"' } });
      assert.equal(stale.status, 412, stale.text);
      const alice = await t.createUser();
      const forbidden = await t.request('POST', restorePath, { token: alice.token, headers: { 'if-match': '*' } });
      assert.equal(forbidden.status, 403);

      const restored = await t.request('POST', restorePath, {
        token: t.adminToken,
        headers: { 'if-match': await etagOf(), 'x-request-id': 'rev-revert-1' },
      });
      assert.equal(restored.status, 200, restored.text);
      assert.deepEqual([restored.body.price, restored.body.name], [12.5, 'Lamp']);
      const [latest] = await revisionsOf(path);
      assert.deepEqual([latest!.op, latest!.requestId], ['revert', 'rev-revert-1']);
      assert.ok(sets(latest!.changes, '/price', 12.5));
      const after = await t.request('GET', path, { token: t.adminToken });
      assert.equal(after.body.price, 12.5);

      // A revision with a field the item no longer has (as after a change of its shape): 409, nothing written.
      const user = await t.createUser();
      const userRevs = await revisionsOf(`/api/v2/users/${user.id}`);
      const state = await t.server.db
        .selectFrom('revisions')
        .select('state')
        .where('id', '=', userRevs[0]!.rev)
        .executeTakeFirstOrThrow();
      await t.server.db
        .updateTable('revisions')
        .set({ state: JSON.stringify({ ...JSON.parse(state.state), nickname: 'Al' }) })
        .where('id', '=', userRevs[0]!.rev)
        .execute();
      const userEtag = (await t.request('GET', `/api/v2/users/${user.id}`, { token: t.adminToken })).headers.get(
        'etag',
      )!;
      const incompatible = await t.request('POST', `/api/v2/users/${user.id}/revisions/${userRevs[0]!.rev}/restore`, {
        token: t.adminToken,
        headers: { 'if-match': userEtag },
      });
      assert.equal(incompatible.status, 409, incompatible.text);
      assert.equal(incompatible.body.error.code, 'REVISION_INCOMPATIBLE');
      assert.equal((await revisionsOf(`/api/v2/users/${user.id}`)).length, 1);
    });

    it('retention: the newest REVISIONS_KEEP per item, none older than REVISIONS_RETENTION_DAYS', async () => {
      const kept = await startTestServer(dialect, { REVISIONS_KEEP: '2', REVISIONS_RETENTION_DAYS: '1' });
      try {
        const created = await kept.request('POST', '/api/v2/products', { token: kept.adminToken, body: PRODUCT });
        const path = `/api/v2/products/${created.body.id}`;
        for (const price of [1, 2, 3]) {
          const etag = (await kept.request('GET', path, { token: kept.adminToken })).headers.get('etag')!;
          const res = await kept.request('PATCH', path, {
            token: kept.adminToken,
            body: { price },
            headers: { 'if-match': etag },
          });
          assert.equal(res.status, 200, res.text);
        }
        const other = await kept.request('POST', '/api/v2/products', { token: kept.adminToken, body: PRODUCT });
        const old = new Date(Date.now() - 2 * 86_400_000).toISOString();
        await kept.server.db
          .updateTable('revisions')
          .set({ at: old })
          .where('resource', '=', 'product')
          .where('item_id', '=', other.body.id)
          .execute();
        while (await kept.server.app.services.history.sweepRevisions());
        const list = await kept.request('GET', `${path}/revisions`, { token: kept.adminToken });
        assert.deepEqual(
          list.body.data.map((r: Revision) => r.op),
          ['update', 'update'],
        );
        const aged = await kept.request('GET', `/api/v2/products/${other.body.id}/revisions`, {
          token: kept.adminToken,
        });
        assert.equal(aged.status, 404);
        const audit = await kept.request('GET', '/api/v2/audit?resource=product', { token: kept.adminToken });
        assert.equal(audit.body.data.length, 2);
      } finally {
        await kept.close();
      }
    });
  });
}
