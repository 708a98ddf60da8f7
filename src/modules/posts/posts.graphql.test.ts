import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { errorCodes, gql, GRAPHQL_TEST_ENV } from '../../../test/support/graphql-test-client.ts';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

const CREATE_POST =
  'mutation ($input: CreatePostInput!) { createPost(input: $input) { id title content createdAt author { id name } comments { id } } }';
const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

for (const dialect of DIALECTS) {
  describe(`posts and comments GraphQL (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(dialect, GRAPHQL_TEST_ENV);
    });
    after(() => t?.close());

    async function createPost(token: string, authorId: number | string, title = 'Hello') {
      const res = await gql(t, CREATE_POST, {
        variables: { input: { title, content: 'World', authorId: String(authorId) } },
        token,
      });
      assert.equal(res.body.errors, undefined, res.text);
      return res.body.data.createPost as { id: string; title: string; createdAt: string };
    }

    describe('createPost', () => {
      it('creates a post for the caller, with its author and an empty comment list', async () => {
        const { id, token } = await t.createUser({ name: 'Author' });
        const res = await gql(t, CREATE_POST, {
          variables: { input: { title: 'First', content: 'Text', authorId: String(id) } },
          token,
        });
        assert.equal(res.status, 200);
        const post = res.body.data.createPost;
        assert.equal(post.title, 'First');
        assert.equal(post.content, 'Text');
        assert.match(post.createdAt, ISO_MS);
        assert.deepEqual(post.author, { id: String(id), name: 'Author' });
        assert.deepEqual(post.comments, []);
      });

      it('refuses creating a post for another user with FORBIDDEN; an admin may', async () => {
        const author = await t.createUser();
        const other = await t.createUser();
        const refused = await gql(t, CREATE_POST, {
          variables: { input: { title: 'T', content: 'C', authorId: String(author.id) } },
          token: other.token,
        });
        assert.deepEqual(errorCodes(refused), ['FORBIDDEN']);
        assert.equal(refused.body.data, null);
        const byAdmin = await createPost(t.adminToken, author.id, 'By admin');
        assert.equal(byAdmin.title, 'By admin');
      });

      it('answers anonymous callers with UNAUTHENTICATED, a blank title with BAD_USER_INPUT, an unknown author with NOT_FOUND', async () => {
        const anonymous = await gql(t, CREATE_POST, {
          variables: { input: { title: 'T', content: 'C', authorId: '1' } },
        });
        assert.deepEqual(errorCodes(anonymous), ['UNAUTHENTICATED']);
        const { id, token } = await t.createUser();
        const blank = await gql(t, CREATE_POST, {
          variables: { input: { title: '  ', content: 'C', authorId: String(id) } },
          token,
        });
        assert.deepEqual(errorCodes(blank), ['BAD_USER_INPUT']);
        assert.ok(
          blank.body.errors[0].extensions.details.some((d: { field: string }) => d.field === 'title'),
          blank.text,
        );
        const unknown = await gql(t, CREATE_POST, {
          variables: { input: { title: 'T', content: 'C', authorId: '999999' } },
          token: t.adminToken,
        });
        assert.deepEqual(errorCodes(unknown), ['NOT_FOUND']);
      });
    });

    describe('queries', () => {
      it('reads a post by id with author, comments (oldest first) and each comment’s author and post', async () => {
        const author = await t.createUser({ name: 'Writer' });
        const reader = await t.createUser({ name: 'Reader' });
        const post = await createPost(author.token, author.id, 'Commented');
        // Comments come from the shared comments service, the one REST's POST .../comments calls.
        const comments = t.server.app.services.comments;
        for (const text of ['first', 'second']) {
          await comments.createComment({ userId: reader.id, role: 'user' }, Number(post.id), { text });
        }
        const res = await gql(
          t,
          `query Read($id: ID!) { post(id: $id) { id title author { name } comments { text author { name } post { id } } } }`,
          {
            variables: { id: post.id },
            token: reader.token,
          },
        );
        assert.equal(res.status, 200, res.text);
        assert.deepEqual(res.body.data.post, {
          id: post.id,
          title: 'Commented',
          author: { name: 'Writer' },
          comments: [
            { text: 'first', author: { name: 'Reader' }, post: { id: post.id } },
            { text: 'second', author: { name: 'Reader' }, post: { id: post.id } },
          ],
        });
        const paged = await gql(t, `{ post(id: "${post.id}") { comments(limit: 1, offset: 1) { text } } }`, {
          token: reader.token,
        });
        assert.deepEqual(paged.body.data.post.comments, [{ text: 'second' }]);
      });

      it('answers null for an unknown post id and UNAUTHENTICATED without a token', async () => {
        const unknown = await gql(t, '{ post(id: "999999") { id } bad: post(id: "x") { id } }', {
          token: t.adminToken,
        });
        assert.deepEqual(unknown.body, { data: { post: null, bad: null } });
        const anonymous = await gql(t, '{ post(id: "1") { id } }');
        assert.deepEqual(errorCodes(anonymous), ['UNAUTHENTICATED']);
      });

      it('lists posts newest first, filtered by author, with limit and offset', async () => {
        const { id, token } = await t.createUser();
        for (const title of ['p1', 'p2', 'p3']) await createPost(token, id, title);
        const res = await gql(t, 'query ($a: ID) { posts(authorId: $a) { title author { id } } }', {
          variables: { a: String(id) },
          token,
        });
        assert.deepEqual(
          res.body.data.posts.map((p: { title: string }) => p.title),
          ['p3', 'p2', 'p1'],
        );
        assert.ok(res.body.data.posts.every((p: { author: { id: string } }) => p.author.id === String(id)));
        const page = await gql(t, `{ posts(authorId: "${id}", limit: 1, offset: 1) { title } }`, { token });
        assert.deepEqual(page.body.data.posts, [{ title: 'p2' }]);
        const all = await gql(t, '{ posts { id } }', { token });
        assert.ok(all.body.data.posts.length <= 20);
      });

      it('lists a user’s posts through User.posts, newest first, with limit', async () => {
        const { id, token } = await t.createUser();
        for (const title of ['a', 'b', 'c']) await createPost(token, id, title);
        const res = await gql(t, `{ user(id: "${id}") { posts { title } latest: posts(limit: 1) { title } } }`, {
          token,
        });
        assert.deepEqual(
          res.body.data.user.posts.map((p: { title: string }) => p.title),
          ['c', 'b', 'a'],
        );
        assert.deepEqual(res.body.data.user.latest, [{ title: 'c' }]);
      });
    });

    describe('one store for REST and GraphQL', () => {
      it('serves through REST a post created through GraphQL, and through GraphQL a post created through REST', async () => {
        const { id, token } = await t.createUser();
        const viaGraphQL = await createPost(token, id, 'From GraphQL');
        const rest = await t.request('GET', `/api/posts/${viaGraphQL.id}`, { token });
        assert.equal(rest.status, 200);
        assert.equal(rest.body.title, 'From GraphQL');
        const created = await t.request('POST', `/api/users/${id}/posts`, {
          body: { title: 'From REST', content: 'Body' },
          token,
        });
        assert.equal(created.status, 201, created.text);
        const read = await gql(t, `{ post(id: "${created.body.id}") { title author { id } } }`, { token });
        assert.deepEqual(read.body.data.post, { title: 'From REST', author: { id: String(id) } });
      });

      it('no longer serves a deleted user’s posts', async () => {
        const { id, token } = await t.createUser();
        const post = await createPost(token, id, 'Doomed');
        const deleted = await gql(t, `mutation { deleteUser(id: "${id}") }`, { token });
        assert.deepEqual(deleted.body, { data: { deleteUser: true } });
        const read = await gql(t, `{ post(id: "${post.id}") { id } }`, { token: t.adminToken });
        assert.deepEqual(read.body, { data: { post: null } });
      });
    });
  });
}
