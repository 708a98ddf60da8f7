import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

const V2 = '/api/v2';

interface Revision {
  rev: number;
  op: string;
  actor: { type: string; id: number | null };
  requestId: string | null;
}

/**
 * DECISIONS §19: every change to a user, post or comment writes a revision, including what a deletion takes
 * into the trash with it (a user's posts and comments, a post's comments), which have no event of their own;
 * and an erasure leaves its own entry in the audit.
 */
for (const dialect of DIALECTS) {
  describe(`revisions of a cascade and an erasure (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    const admin = (requestId?: string) => ({
      token: t.adminToken,
      ...(requestId ? { headers: { 'x-request-id': requestId } } : {}),
    });

    before(async () => {
      t = await startTestServer(dialect);
    });
    after(() => t?.close());

    const opsOf = async (path: string): Promise<Revision[]> => {
      const res = await t.request('GET', `${path}/revisions?limit=100`, admin());
      assert.equal(res.status, 200, res.text);
      return res.body.data as Revision[];
    };

    /** A user with a post, their comment on it, and another user's comment on it. */
    async function authorWithContent() {
      const author = await t.createUser();
      const other = await t.createUser();
      const post = await t.request('POST', `${V2}/users/${author.id}/posts`, {
        token: author.token,
        body: { title: 'Cascade', content: 'Body' },
      });
      assert.equal(post.status, 201, post.text);
      const own = await t.request('POST', `${V2}/posts/${post.body.id}/comments`, {
        token: author.token,
        body: { text: 'Mine' },
      });
      const others = await t.request('POST', `${V2}/posts/${post.body.id}/comments`, {
        token: other.token,
        body: { text: 'Theirs' },
      });
      assert.equal(own.status, 201, own.text);
      assert.equal(others.status, 201, others.text);
      return {
        author,
        paths: {
          user: `${V2}/users/${author.id}`,
          post: `${V2}/posts/${post.body.id}`,
          own: `${V2}/comments/${own.body.id}`,
          others: `${V2}/comments/${others.body.id}`,
        },
      };
    }

    it("deleting a user writes a delete revision for each post and comment of the cascade, and restoring one a restore each, under the deletion's request id", async () => {
      const { paths } = await authorWithContent();
      assert.equal((await t.request('DELETE', paths.user, admin('cascade-delete-1'))).status, 204);
      for (const path of Object.values(paths)) {
        const [latest] = await opsOf(path);
        assert.equal(latest!.op, 'delete', path);
        assert.equal(latest!.requestId, 'cascade-delete-1', path);
        assert.deepEqual(latest!.actor, { type: 'user', id: 1 }, path);
      }
      const restored = await t.request('POST', `${paths.user}/restore`, admin('cascade-restore-1'));
      assert.equal(restored.status, 200, restored.text);
      for (const path of Object.values(paths)) {
        const ops = (await opsOf(path)).map((revision) => revision.op);
        assert.deepEqual(ops.slice(0, 3), ['restore', 'delete', 'create'], path);
      }
    });

    it('deleting a post writes a delete revision for each of its comments; its author, untouched, writes none', async () => {
      const { paths } = await authorWithContent();
      const userRevisions = (await opsOf(paths.user)).length;
      assert.equal((await t.request('DELETE', paths.post, admin('cascade-delete-2'))).status, 204);
      for (const path of [paths.post, paths.own, paths.others]) {
        const [latest] = await opsOf(path);
        assert.equal(latest!.op, 'delete', path);
        assert.equal(latest!.requestId, 'cascade-delete-2', path);
      }
      assert.equal((await opsOf(paths.user)).length, userRevisions);
    });

    it("erasing a user writes an erase revision in the audit, by the administrator who erased, holding none of the user's values", async () => {
      const person = await t.createUser({ name: 'Ernestine Erasable', age: 33 });
      const path = `${V2}/users/${person.id}`;
      const erased = await t.request('POST', `${path}/erase`, admin('erase-1'));
      assert.equal(erased.status, 200, erased.text);
      const audit = await t.request('GET', `${V2}/audit?op=erase&resource=user&limit=100`, admin());
      assert.equal(audit.status, 200, audit.text);
      const entry = (audit.body.data as (Revision & { itemId: number })[]).find((e) => e.itemId === person.id);
      assert.ok(entry, 'the erasure is in the audit');
      assert.equal(entry.requestId, 'erase-1');
      assert.deepEqual(entry.actor, { type: 'user', id: 1 });
      const asWas = await t.request('GET', `${path}/revisions/${entry.rev}`, admin());
      assert.equal(asWas.status, 200, asWas.text);
      assert.equal(asWas.body.name, '[erased]');
      assert.doesNotMatch(JSON.stringify(asWas.body), /Ernestine|@example/);
    });
  });
}
