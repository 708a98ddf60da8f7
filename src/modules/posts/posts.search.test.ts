import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { gql, GRAPHQL_TEST_ENV } from '../../../test/support/graphql-test-client.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

const CORPUS: [title: string, content: string][] = [
  ['Caching an API', 'How the cache answers requests before the database wakes up.'],
  ['Indexes explained', 'An index turns a scan into a seek; caches help too.'],
  ['Release notes', 'This release fixes a slow query and a <b>bold</b> claim.'],
  ['On deploys', 'We deploy on Tuesdays. Deploying is boring, and boring is good.'],
  ['Metrics and traces', 'A trace shows where a request spent its time; metrics count.'],
];

const MATCHES: [q: string, positions: number[]][] = [
  ['caches', [1, 2]],
  ['"slow query"', [3]],
  ['deploying', [4]],
  ['requests -cache', [5]],
  ['trace or index', [2, 5]],
  ['rel*', [3]],
];

type Item = { id: number; _search?: { score: number; highlights?: Record<string, string> } };
type Feed = { data: Item[]; nextCursor: string | null; suggestion?: string | null; pagination?: { total?: number } };

/** DECISIONS §14 on `GET /api/posts`: `q`, relevance, `_search`, highlights, suggestions, on both databases. */
for (const dialect of DIALECTS) {
  describe(`posts full-text search (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let token: string;
    let author: number;
    let ids: number[];

    const feed = async (query: string, prefix = '/api/v2'): Promise<Feed> => {
      const res = await t.request('GET', `${prefix}/posts?${query}`, { token });
      assert.equal(res.status, 200, `${prefix} ${query}: ${res.text}`);
      return res.body as Feed;
    };
    const found = async (q: string, prefix = '/api/v2') =>
      (await feed(`limit=100&q=${encodeURIComponent(q)}`, prefix)).data.map((item) => item.id).sort((a, b) => a - b);

    before(async () => {
      t = await startTestServer(dialect, GRAPHQL_TEST_ENV);
      const user = await t.createUser();
      token = user.token;
      author = user.id;
      ids = [];
      for (const [title, content] of CORPUS) {
        const res = await t.request('POST', `/api/users/${author}/posts`, { token, body: { title, content } });
        assert.equal(res.status, 201, res.text);
        ids.push(res.body.id as number);
      }
    });
    after(() => t?.close());

    it('finds the same posts for each query on v1, v2 and /api', async () => {
      for (const [q, positions] of MATCHES) {
        const expected = positions.map((p) => ids[p - 1]!).sort((a, b) => a - b);
        for (const prefix of ['/api', '/api/v1', '/api/v2']) assert.deepEqual(await found(q, prefix), expected, q);
      }
    });

    it('keeps the seed search a substring of the title or the content', async () => {
      const page = await feed('search=boring');
      assert.deepEqual(
        page.data.map((item) => item.id),
        [ids[3]],
      );
      assert.equal(page.data[0]!._search, undefined);
    });

    it('orders by relevance with a score, walks it by cursor, and counts the matches', async () => {
      const all = await feed('q=cache%20or%20request&limit=100&count=exact');
      const scores = all.data.map((item) => item._search!.score);
      assert.deepEqual(
        scores,
        [...scores].sort((a, b) => b - a),
      );
      assert.equal(all.pagination?.total, all.data.length);
      const walked: number[] = [];
      let page = await feed('q=cache%20or%20request&limit=1');
      for (;;) {
        walked.push(...page.data.map((item) => item.id));
        if (!page.nextCursor) break;
        page = await feed(`q=cache%20or%20request&limit=1&cursor=${page.nextCursor}`);
      }
      assert.deepEqual(
        walked,
        all.data.map((item) => item.id),
      );
    });

    it('highlights title and content, HTML-escaped', async () => {
      const page = await feed('q=bold&highlight=title,content');
      const { highlights } = page.data[0]!._search!;
      assert.equal(highlights!.title, 'Release notes');
      assert.match(highlights!.content!, /&lt;b&gt;<mark>bold<\/mark>&lt;\/b&gt;/);
      const refused = await t.request('GET', '/api/v2/posts?q=bold&highlight=authorId', { token });
      assert.equal(refused.status, 422);
      assert.equal(refused.body.error.details[0].field, 'highlight');
    });

    it('cuts a long text to about 30 words around the match, and combines with include', async () => {
      const filler = (word: string, n: number) => Array.from({ length: n }, (_, i) => `${word}${i % 7}`).join(' ');
      const content = `${filler('alpha', 100)} the zeppelin landed here ${filler('omega', 100)}`;
      const created = await t.request('POST', `/api/users/${author}/posts`, {
        token,
        body: { title: 'A long one', content },
      });
      assert.equal(created.status, 201, created.text);
      const page = await feed('q=zeppelin&highlight=content&include=author');
      const item = page.data[0] as Item & { _embedded?: { author?: { id: number } } };
      const text = item._search!.highlights!.content!;
      assert.match(text, /<mark>zeppelin<\/mark>/);
      const words = text.split(/\s+/).length;
      assert.ok(words >= 15 && words <= 40, `${words} words: ${text}`);
      assert.equal(item._embedded?.author?.id, author);
    });

    it('suggests the closest indexed words when nothing matches', async () => {
      const page = await feed('q=deplyo%20metrcs');
      assert.deepEqual(page.data, []);
      assert.equal(page.suggestion, 'deploy metrics');
    });

    it('searches in GraphQL too: posts and postsConnection take search, each post its searchScore', async () => {
      const res = await gql(
        t,
        `{ posts(search: "caches", limit: 10) { id searchScore }
           postsConnection(search: "trace or index", limit: 1) { nodes { id searchScore } pageInfo { endCursor hasNextPage } }
           plain: posts(limit: 1) { id searchScore } }`,
        { token },
      );
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.errors, undefined, res.text);
      const { posts, postsConnection, plain } = res.body.data;
      assert.deepEqual(
        posts.map((p: { id: string }) => Number(p.id)).sort((a: number, b: number) => a - b),
        [ids[0], ids[1]],
      );
      assert.ok(posts.every((p: { searchScore: number }) => p.searchScore > 0));
      assert.equal(postsConnection.pageInfo.hasNextPage, true);
      assert.equal(plain[0].searchScore, null);
      const refused = await gql(t, '{ posts(search: "-chair") { id } }', { token });
      assert.equal(refused.body.errors[0].extensions.code, 'BAD_USER_INPUT', refused.text);
      assert.equal(refused.body.errors[0].extensions.details[0].field, 'search', refused.text);
    });

    it('refuses an undeclared parameter in v2 still, and sort=relevance without q', async () => {
      const res = await t.request('GET', '/api/v2/posts?sort=relevance', { token });
      assert.equal(res.status, 422);
    });
  });
}
