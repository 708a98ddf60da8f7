import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { eventsAfter, feedEnd } from '../../../test/support/events.ts';
import { errorCodes, gql } from '../../../test/support/graphql-test-client.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

for (const dialect of DIALECTS) {
  describe(`posts: editing and deleting (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;

    before(async () => {
      t = await startTestServer(dialect);
    });
    after(() => t?.close());

    async function postOf(user: { id: number; token: string }, title = 'Title') {
      const res = await t.request('POST', `/api/v2/users/${user.id}/posts`, {
        token: user.token,
        body: { title, content: 'Content' },
      });
      assert.equal(res.status, 201, res.text);
      return res.body as { id: number; title: string; content: string; updatedAt: string };
    }

    it('PATCH changes only the fields sent, by the author, on v1 and v2 and the nested path, with post.updated', async () => {
      const alice = await t.createUser();
      const post = await postOf(alice);
      const cursor = await feedEnd(t);
      const patched = await t.request('PATCH', `/api/v2/posts/${post.id}`, {
        token: alice.token,
        body: { title: 'New title' },
      });
      assert.equal(patched.status, 200, patched.text);
      assert.equal(patched.body.title, 'New title');
      assert.equal(patched.body.content, 'Content');
      assert.ok(patched.body.updatedAt >= post.updatedAt);
      const nested = await t.request('PATCH', `/api/v1/users/${alice.id}/posts/${post.id}`, {
        token: alice.token,
        body: { content: 'Other' },
      });
      assert.equal(nested.status, 200, nested.text);
      assert.equal(nested.body.title, 'New title');
      assert.equal(nested.body.content, 'Other');
      const events = await eventsAfter(t, cursor, 2, '&type=post.updated');
      assert.deepEqual(
        events.map((e) => [e.type, e.data.id, e.data.title, e.data.content]),
        [
          ['post.updated', post.id, 'New title', 'Content'],
          ['post.updated', post.id, 'New title', 'Other'],
        ],
      );
    });

    it('PUT needs title and content, and answers 422 for a missing or blank one', async () => {
      const alice = await t.createUser();
      const post = await postOf(alice);
      const missing = await t.request('PUT', `/api/v2/posts/${post.id}`, { token: alice.token, body: { title: 'x' } });
      assert.equal(missing.status, 422);
      assert.equal(missing.body.error.code, 'VALIDATION_ERROR');
      const blank = await t.request('PATCH', `/api/v2/posts/${post.id}`, { token: alice.token, body: { title: ' ' } });
      assert.equal(blank.status, 422);
      const put = await t.request('PUT', `/api/v2/posts/${post.id}`, {
        token: alice.token,
        body: { title: 'T2', content: 'C2' },
      });
      assert.equal(put.status, 200);
      assert.deepEqual([put.body.title, put.body.content], ['T2', 'C2']);
    });

    it('lets an admin edit anyone’s post and refuses another user with 403, nothing changed', async () => {
      const alice = await t.createUser();
      const bob = await t.createUser();
      const post = await postOf(alice, 'Original');
      const asBob = await t.request('PATCH', `/api/v2/posts/${post.id}`, { token: bob.token, body: { title: 'Bob' } });
      assert.equal(asBob.status, 403);
      const bobDelete = await t.request('DELETE', `/api/v2/posts/${post.id}`, { token: bob.token });
      assert.equal(bobDelete.status, 403);
      const read = await t.request('GET', `/api/v2/posts/${post.id}`, { token: bob.token });
      assert.equal(read.body.title, 'Original');
      const asAdmin = await t.request('PATCH', `/api/v2/posts/${post.id}`, {
        token: t.adminToken,
        body: { title: 'Admin' },
      });
      assert.equal(asAdmin.status, 200);
      assert.equal(asAdmin.body.title, 'Admin');
    });

    it('answers 404 on the nested path of another user, and for no such post', async () => {
      const alice = await t.createUser();
      const bob = await t.createUser();
      const post = await postOf(alice);
      for (const [method, path] of [
        ['PATCH', `/api/v2/users/${bob.id}/posts/${post.id}`],
        ['DELETE', `/api/v2/users/${bob.id}/posts/${post.id}`],
        ['PATCH', `/api/v2/posts/99999999`],
        ['DELETE', `/api/v2/posts/99999999`],
      ] as const) {
        const res = await t.request(method, path, { token: t.adminToken, body: method === 'PATCH' ? {} : undefined });
        assert.equal(res.status, 404, `${method} ${path}`);
      }
    });

    it('honours If-Match: a stale ETag is 412 and changes nothing, the current one writes', async () => {
      const alice = await t.createUser();
      const post = await postOf(alice, 'Before');
      const read = await t.request('GET', `/api/v2/posts/${post.id}`, { token: alice.token });
      const etag = read.headers.get('etag')!;
      const ok = await t.request('PATCH', `/api/v2/posts/${post.id}`, {
        token: alice.token,
        body: { title: 'After' },
        headers: { 'if-match': etag },
      });
      assert.equal(ok.status, 200);
      for (const method of ['PATCH', 'DELETE'] as const) {
        const stale = await t.request(method, `/api/v2/posts/${post.id}`, {
          token: alice.token,
          body: method === 'PATCH' ? { title: 'Stale' } : undefined,
          headers: { 'if-match': etag },
        });
        assert.equal(stale.status, 412, method);
      }
      const after = await t.request('GET', `/api/v2/posts/${post.id}`, { token: alice.token });
      assert.equal(after.status, 200);
      assert.equal(after.body.title, 'After');
    });

    it('DELETE by the author answers 204, the post is gone, and post.deleted is emitted', async () => {
      const alice = await t.createUser();
      const post = await postOf(alice);
      const cursor = await feedEnd(t);
      const res = await t.request('DELETE', `/api/v1/users/${alice.id}/posts/${post.id}`, { token: alice.token });
      assert.equal(res.status, 204);
      const read = await t.request('GET', `/api/v2/posts/${post.id}`, { token: alice.token });
      assert.equal(read.status, 404);
      const events = await eventsAfter(t, cursor, 1, '&type=post.deleted');
      assert.deepEqual(
        events.map((e) => [e.type, e.data.id]),
        [['post.deleted', post.id]],
      );
    });

    it('GraphQL updatePost and deletePost follow the same rules', async () => {
      const alice = await t.createUser();
      const bob = await t.createUser();
      const post = await postOf(alice);
      const update = `mutation($id: ID!, $title: String) { updatePost(id: $id, input: {title: $title}) { id title content } }`;
      const forbidden = await gql(t, update, { token: bob.token, variables: { id: String(post.id), title: 'B' } });
      assert.deepEqual(errorCodes(forbidden), ['FORBIDDEN']);
      const ok = await gql(t, update, { token: alice.token, variables: { id: String(post.id), title: 'G' } });
      assert.deepEqual(ok.body.data.updatePost, { id: String(post.id), title: 'G', content: 'Content' });
      const remove = `mutation($id: ID!) { deletePost(id: $id) }`;
      const deleted = await gql(t, remove, { token: alice.token, variables: { id: String(post.id) } });
      assert.equal(deleted.body.data.deletePost, true);
      const again = await gql(t, remove, { token: alice.token, variables: { id: String(post.id) } });
      assert.equal(again.body.data.deletePost, false);
      const missing = await gql(t, update, { token: alice.token, variables: { id: 'x', title: 'G' } });
      assert.deepEqual(errorCodes(missing), ['NOT_FOUND']);
    });
  });
}
