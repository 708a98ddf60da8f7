import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

const V2 = '/api/v2';
type Item = { id: number; deletedAt?: string; deletedBy?: unknown; deletionId?: string; purgeAt?: string };

for (const dialect of DIALECTS) {
  describe(`lists with trashed=include (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    const admin = () => ({ token: t.adminToken });

    before(async () => {
      t = await startTestServer(dialect);
    });
    after(() => t?.close());

    /** Every page of a list by its cursor, as one array (the cursor sits in `pagination` or at the top). */
    async function walk(path: string, token: string): Promise<Item[]> {
      const items: Item[] = [];
      let cursor: string | null = null;
      for (let pages = 0; pages < 100; pages += 1) {
        const separator = path.includes('?') ? '&' : '?';
        const url: string = cursor === null ? path : `${path}${separator}cursor=${encodeURIComponent(cursor)}`;
        const res = await t.request('GET', url, { token });
        assert.equal(res.status, 200, res.text);
        items.push(...(res.body.data as Item[]));
        cursor = res.body.pagination ? res.body.pagination.nextCursor : res.body.nextCursor;
        if (cursor === null) return items;
      }
      throw new Error('too many pages');
    }

    const isTrashed = (item: Item) =>
      typeof item.deletedAt === 'string' &&
      typeof item.deletionId === 'string' &&
      typeof item.purgeAt === 'string' &&
      item.deletedBy !== undefined;

    it('users: the live list by its sort, then the trash newest deletion first, across pages without loss or repeat (admins)', async () => {
      const created = [];
      for (let i = 0; i < 5; i += 1) created.push(await t.createUser());
      for (const user of created.slice(0, 3)) {
        assert.equal((await t.request('DELETE', `${V2}/users/${user.id}`, admin())).status, 204);
      }
      const live = await walk(`${V2}/users?limit=2&sort=-id`, t.adminToken);
      assert.ok(live.every((item) => !isTrashed(item)));
      for (const limit of [1, 2, 3, 100]) {
        const all = await walk(`${V2}/users?trashed=include&limit=${limit}&sort=-id`, t.adminToken);
        const ids = all.map((item) => item.id);
        assert.equal(new Set(ids).size, ids.length, `no repeats (limit ${limit})`);
        assert.deepEqual(
          all.filter((item) => !isTrashed(item)).map((item) => item.id),
          live.map((item) => item.id),
        );
        const trashed = all.slice(live.length);
        assert.ok(trashed.every(isTrashed), `live first, then trashed (limit ${limit})`);
        assert.deepEqual(
          trashed.map((item) => item.id),
          created
            .slice(0, 3)
            .map((user) => user.id)
            .reverse(),
        );
      }
      const user = created[4]!;
      assert.equal((await t.request('GET', `${V2}/users?trashed=include&limit=1`, { token: user.token })).status, 403);
      assert.equal(
        (await t.request('GET', `/api/v1/users?trashed=include&limit=1`, { token: user.token })).status,
        403,
      );
      const v1 = await t.request('GET', `/api/v1/users?trashed=include&limit=100`, admin());
      assert.equal(v1.status, 200, v1.text);
      assert.equal((await t.request('GET', `${V2}/users?trashed=include&page=2`, admin())).status, 422);
      assert.equal((await t.request('GET', `${V2}/users?trashed=include&cursor=nonsense`, admin())).status, 422);
    });

    it('posts: an author sees every live post and only their own trashed ones; admins all', async () => {
      const alice = await t.createUser();
      const bob = await t.createUser();
      const post = async (who: { id: number; token: string }, title: string) =>
        (await t.request('POST', `${V2}/users/${who.id}/posts`, { token: who.token, body: { title, content: 'C' } }))
          .body.id as number;
      const a1 = await post(alice, 'a1');
      const a2 = await post(alice, 'a2');
      const b1 = await post(bob, 'b1');
      const b2 = await post(bob, 'b2');
      assert.equal((await t.request('DELETE', `${V2}/posts/${a2}`, { token: alice.token })).status, 204);
      assert.equal((await t.request('DELETE', `${V2}/posts/${b2}`, { token: bob.token })).status, 204);

      const asAlice = await walk(`${V2}/posts?trashed=include&limit=1`, alice.token);
      const ids = asAlice.map((item) => item.id);
      assert.ok(ids.includes(a1) && ids.includes(b1) && ids.includes(a2));
      assert.ok(!ids.includes(b2), "another author's trashed post stays hidden");
      assert.equal(new Set(ids).size, ids.length);
      assert.equal(asAlice.at(-1)!.id, a2);
      assert.ok(isTrashed(asAlice.at(-1)!));

      const asAdmin = (await walk(`${V2}/posts?trashed=include&limit=2`, t.adminToken)).map((item) => item.id);
      assert.deepEqual(asAdmin.slice(-2), [b2, a2]);

      // The nested list: that author's live posts, then their trash as the caller may see it.
      const bobsAsAdmin = await walk(`${V2}/users/${bob.id}/posts?trashed=include&limit=1`, t.adminToken);
      assert.deepEqual(
        bobsAsAdmin.map((item) => [item.id, isTrashed(item)]),
        [
          [b1, false],
          [b2, true],
        ],
      );
      const bobsAsAlice = await walk(`${V2}/users/${bob.id}/posts?trashed=include`, alice.token);
      assert.deepEqual(
        bobsAsAlice.map((item) => item.id),
        [b1],
      );
      const alicesOnly = await walk(`${V2}/users/${alice.id}/posts?trashed=only`, alice.token);
      assert.deepEqual(
        alicesOnly.map((item) => item.id),
        [a2],
      );

      const plain = await t.request('GET', `${V2}/posts?limit=100`, { token: alice.token });
      const plainIds = (plain.body.data as Item[]).map((item) => item.id);
      assert.ok(!plainIds.includes(a2) && plainIds.includes(a1), 'without trashed the list is as it was');
    });

    it('every comment (GET /comments): include lists live then trashed, only the trash; an author sees their own trashed ones, admins all', async () => {
      const [alice, bob] = [await t.createUser(), await t.createUser()];
      const postId = (
        await t.request('POST', `${V2}/users/${alice.id}/posts`, {
          token: alice.token,
          body: { title: 'T', content: 'C' },
        })
      ).body.id as number;
      const comment = async (user: { token: string }, text: string) =>
        (await t.request('POST', `${V2}/posts/${postId}/comments`, { token: user.token, body: { text } })).body
          .id as number;
      const [a1, a2, b1] = [await comment(alice, 'a1'), await comment(alice, 'a2'), await comment(bob, 'b1')];
      for (const id of [a2, b1]) {
        assert.equal((await t.request('DELETE', `${V2}/posts/${postId}/comments/${id}`, admin())).status, 204);
      }
      const mine = (items: Item[]) => items.filter((item) => [a1, a2, b1].includes(item.id as number));
      const asAdmin = mine(await walk(`${V2}/comments?postId=${postId}&trashed=include&limit=1`, t.adminToken));
      assert.deepEqual(
        asAdmin.map((item) => [item.id, isTrashed(item)]),
        [
          [a1, false],
          [b1, true],
          [a2, true],
        ],
      );
      const asAlice = mine(await walk(`${V2}/comments?trashed=include&limit=2`, alice.token));
      assert.deepEqual(
        asAlice.filter(isTrashed).map((item) => item.id),
        [a2],
      );
      const only = mine(await walk(`${V2}/comments?trashed=only&limit=1`, bob.token));
      assert.deepEqual(
        only.map((item) => [item.id, isTrashed(item)]),
        [[b1, true]],
      );
      assert.equal((await t.request('GET', `${V2}/comments?trashed=include`)).status, 401);
    });

    it("comments of a post and products: the live list's filters apply to the live part only; 403 for non-admins on products", async () => {
      const alice = await t.createUser();
      const postId = (
        await t.request('POST', `${V2}/users/${alice.id}/posts`, {
          token: alice.token,
          body: { title: 'T', content: 'C' },
        })
      ).body.id as number;
      const comment = async (text: string) =>
        (await t.request('POST', `${V2}/posts/${postId}/comments`, { token: alice.token, body: { text } })).body
          .id as number;
      const c1 = await comment('one');
      const c2 = await comment('two');
      assert.equal((await t.request('DELETE', `${V2}/posts/${postId}/comments/${c2}`, admin())).status, 204);
      const comments = await walk(`${V2}/posts/${postId}/comments?trashed=include&limit=1`, alice.token);
      assert.deepEqual(
        comments.map((item) => [item.id, isTrashed(item)]),
        [
          [c1, false],
          [c2, true],
        ],
      );

      const product = async (category: string) =>
        (
          await t.request('POST', `${V2}/products`, {
            ...admin(),
            body: { name: `P ${category}`, category, price: 1, stock: 1 },
          })
        ).body.id as number;
      const kept = await product('incl-kept');
      const binned = await product('incl-other');
      assert.equal((await t.request('DELETE', `${V2}/products/${binned}`, admin())).status, 204);
      const products = await walk(`${V2}/products?trashed=include&category=incl-kept&limit=1`, t.adminToken);
      assert.deepEqual(
        products.map((item) => [item.id, isTrashed(item)]),
        [
          [kept, false],
          [binned, true],
        ],
      );
      assert.equal((await t.request('GET', `${V2}/products?trashed=include`, { token: alice.token })).status, 403);
      assert.equal((await t.request('GET', `${V2}/products?trashed=include`)).status, 401);
    });
  });
}
