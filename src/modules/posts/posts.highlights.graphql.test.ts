import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { errorCodes, gql, GRAPHQL_TEST_ENV } from '../../../test/support/graphql-test-client.ts';
import { statementsOf } from '../../../test/support/statements-of.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

type Highlight = { field: string; text: string };

/** DECISIONS §14 in GraphQL on posts: `Post.highlights`, REST's `_search.highlights`, read once per list. */
for (const dialect of DIALECTS) {
  describe(`Post.highlights in GraphQL (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let author: { id: number; token: string };
    before(async () => {
      t = await startTestServer(dialect, GRAPHQL_TEST_ENV);
      author = await t.createUser();
      for (const [title, content] of [
        ['Gardening <em>tips</em>', 'Water the roses & tulips at dawn'],
        ['Rose pruning', 'Cut each rose stem above a bud'],
        ['Baking bread', 'Flour, water and salt'],
      ]) {
        const res = await t.request('POST', `/api/users/${author.id}/posts`, {
          token: author.token,
          body: { title, content },
        });
        assert.equal(res.status, 201, res.text);
      }
    });
    after(() => t?.close());

    it('highlights a searched list’s posts as REST does, escaped, in one statement for the list', async () => {
      const query =
        '{ posts(search: "rose") { id highlights(fields: ["title", "content"]) { field text } searchScore } }';
      const without = await statementsOf(t.server.db, () =>
        gql(t, '{ posts(search: "rose") { id searchScore } }', { token: author.token }),
      );
      const { result: res, statements } = await statementsOf(t.server.db, () => gql(t, query, { token: author.token }));
      assert.equal(res.body.errors, undefined, res.text);
      assert.equal(statements.length, without.statements.length + 1, statements.join('\n'));
      const rest = await t.request('GET', '/api/posts?q=rose&highlight=title,content', { token: author.token });
      assert.equal(rest.status, 200, rest.text);
      const expected = (rest.body.data as { id: number; _search: { highlights: Record<string, string> } }[]).map(
        (item) => ({
          id: String(item.id),
          highlights: ['title', 'content'].map((field) => ({ field, text: item._search.highlights[field] ?? '' })),
        }),
      );
      const found = res.body.data.posts as { id: string; highlights: Highlight[] }[];
      assert.deepEqual(
        found.map(({ id, highlights }) => ({ id, highlights })).sort((a, b) => a.id.localeCompare(b.id)),
        expected.sort((a, b) => a.id.localeCompare(b.id)),
      );
      assert.equal(found.length, 2);
      const garden = found.find((p) => p.highlights[0]!.text.startsWith('Gardening'))!;
      assert.equal(garden.highlights[0]!.text, 'Gardening &lt;em&gt;tips&lt;/em&gt;');
      assert.match(garden.highlights[1]!.text, /^Water the <mark>roses<\/mark> &amp; tulips/);
    });

    it('highlights the nodes of a searched connection; null without a search; names an unknown field', async () => {
      const res = await gql(
        t,
        '{ postsConnection(search: "bread") { nodes { highlights(fields: ["title"]) { text } } } }',
        { token: author.token },
      );
      assert.deepEqual(res.body.data, {
        postsConnection: { nodes: [{ highlights: [{ text: 'Baking <mark>bread</mark>' }] }] },
      });
      const plain = await gql(t, '{ posts(limit: 1) { highlights(fields: ["title"]) { text } } }', {
        token: author.token,
      });
      assert.deepEqual(plain.body.data, { posts: [{ highlights: null }] });
      const unknown = await gql(t, '{ posts(search: "rose") { highlights(fields: ["author"]) { text } } }', {
        token: author.token,
      });
      assert.deepEqual(errorCodes(unknown), ['BAD_USER_INPUT'], unknown.text);
      assert.match(unknown.text, /"field":"highlights.fields"/);
    });
  });
}
