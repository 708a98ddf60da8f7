import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { generateOpenApiDocuments } from '../../contract-documents.ts';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { seedPosts, type ListedPost } from '../../../test/support/posts.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';
import { encodePostCursor } from './post-cursor.ts';

/** `GET /posts`: the seed's cursor list, with `pagination` when `count` is sent. */
type Feed = { data: ListedPost[]; nextCursor: string | null; pagination?: Record<string, unknown> };

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** DECISIONS §12 on `GET /api/posts`: filters, sorts, count and cursors beside the seed's cursor list. */
for (const dialect of DIALECTS) {
  describe(`GET /api/posts queries (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let token: string;
    let authors: { id: number; token: string }[];
    let all: ListedPost[];

    const feed = async (query: string, prefix = '/api') => {
      const res = await t.request('GET', `${prefix}/posts?${query}`, { token });
      assert.equal(res.status, 200, `${query}: ${res.text}`);
      return res.body as Feed;
    };
    const idsOf = (posts: ListedPost[]) => posts.map((p) => p.id);
    const refusal = async (query: string) => {
      const res = await t.request('GET', `/api/posts?${query}`, { token });
      assert.equal(res.status, 422, `${query}: ${res.text}`);
      assert.equal(res.body.error.code, 'VALIDATION_ERROR');
      return res.body.error.details.map((d: { field: string }) => d.field) as string[];
    };

    before(async () => {
      t = await startTestServer(dialect);
      ({ authors, all } = await seedPosts(t));
      token = authors[0]!.token;
    });
    after(() => t?.close());

    it('filters by author, title, creation time, id and search (title or content), newest first', async () => {
      const [a, b] = authors;
      const expect = async (query: string, keep: (p: ListedPost) => boolean) =>
        assert.deepEqual(idsOf((await feed(`limit=100&${query}`)).data), idsOf(all.filter(keep)), query);
      await expect(`authorId=${a!.id}`, (p) => p.authorId === a!.id);
      await expect(`authorId[in]=${a!.id},${b!.id}`, (p) => p.authorId !== authors[2]!.id);
      await expect(`authorId[ne]=${a!.id}`, (p) => p.authorId !== a!.id);
      await expect('title=Gamma', (p) => p.title === 'Gamma');
      await expect('title[contains]=alpha', (p) => /alpha/i.test(p.title));
      await expect('title[gte]=Kappa', (p) => p.title >= 'Kappa');
      await expect('search=alpha', (p) => /alpha/i.test(p.title) || /alpha/i.test(p.content));
      await expect('search[contains]=CATS', (p) => p.content === 'About cats');
      // `%` and `_` are matched literally, not as LIKE's wildcards.
      await expect('search=100%25', (p) => p.title === 'Beta release');
      await expect('search=_', (p) => p.title === 'Delta_x');
      const from = '2026-01-01T03:00:00.000Z';
      const to = '2026-01-01T07:00:00.000Z';
      await expect(`createdAt[gte]=${from}&createdAt[lt]=${to}`, (p) => p.createdAt >= from && p.createdAt < to);
      await expect(`id[in]=${all[1]!.id},${all[3]!.id}`, (p) => p.id === all[1]!.id || p.id === all[3]!.id);
      await expect(`search=filler&authorId=${b!.id}`, (p) => p.content === 'filler' && p.authorId === b!.id);
    });

    it('sorts by a comma list, `-` descending, ties by id in the first key’s direction', async () => {
      const sorted = (compare: (x: ListedPost, y: ListedPost) => number) => idsOf([...all].sort(compare));
      const cases: [string, (x: ListedPost, y: ListedPost) => number][] = [
        ['title', (x, y) => byText(x.title, y.title)],
        ['-title', (x, y) => byText(y.title, x.title)],
        ['createdAt', (x, y) => byText(x.createdAt, y.createdAt) || x.id - y.id],
        ['-createdAt', (x, y) => byText(y.createdAt, x.createdAt) || y.id - x.id],
        ['authorId,-createdAt', (x, y) => x.authorId - y.authorId || byText(y.createdAt, x.createdAt) || x.id - y.id],
        ['-authorId', (x, y) => y.authorId - x.authorId || y.id - x.id],
        ['id', (x, y) => x.id - y.id],
      ];
      for (const [sort, compare] of cases) {
        assert.deepEqual(idsOf((await feed(`limit=100&sort=${sort}`)).data), sorted(compare), sort);
      }
    });

    it('answers 422 naming each parameter it cannot read', async () => {
      assert.deepEqual(await refusal('sort=content'), ['sort']);
      assert.deepEqual(await refusal('sort=search'), ['sort']);
      assert.deepEqual(await refusal('sort=title,title'), ['sort']);
      assert.deepEqual(await refusal('count=all'), ['count']);
      assert.deepEqual(await refusal('createdAt[gt]=yesterday'), ['createdAt[gt]']);
      assert.deepEqual(await refusal('authorId[contains]=1'), ['authorId[contains]']);
      assert.deepEqual(await refusal('search[eq]=x'), ['search[eq]']);
      assert.deepEqual(await refusal('title[null]=true'), ['title[null]']);
      assert.deepEqual(await refusal('content[contains]=x'), ['content[contains]']);
      assert.deepEqual(await refusal('authorId[in]=1,x'), ['authorId[in]']);
    });

    it('stays the seed’s {data, nextCursor} without count, and adds pagination when count is sent', async () => {
      const plain = await feed(`limit=2&authorId=${authors[0]!.id}&sort=title`);
      assert.deepEqual(Object.keys(plain).sort(), ['data', 'nextCursor']);
      const exact = await feed('limit=3&count=exact');
      assert.deepEqual(exact.pagination, {
        page: 1,
        limit: 3,
        total: all.length,
        totalPages: Math.ceil(all.length / 3),
        hasNext: true,
        hasPrev: false,
        nextCursor: exact.nextCursor,
      });
      const mine = all.filter((p) => p.authorId === authors[1]!.id).length;
      assert.equal((await feed(`count=exact&authorId=${authors[1]!.id}`)).pagination!.total, mine);
      assert.equal((await feed('count=estimated&search=alpha')).pagination!.total, 3);
      assert.equal((await feed('count=estimated&search=alpha')).pagination!.totalEstimated, undefined);
      const none = (await feed('limit=3&count=none')).pagination!;
      assert.ok(!('total' in none) && !('totalPages' in none));
      assert.equal(none.hasNext, true);
    });

    for (const prefix of ['/api/v1', '/api/v2']) {
      it(`walks every filter and sort to the end by cursor, each post once and in order (${prefix})`, async () => {
        const queries = [
          '',
          'sort=title',
          'sort=-createdAt',
          'sort=authorId,-title',
          `authorId=${authors[1]!.id}&sort=createdAt`,
          'search=l&sort=-id',
          'count=exact&title[lt]=M',
        ];
        for (const query of queries) {
          const whole = idsOf((await feed(`limit=100&${query}`, prefix)).data);
          const walked: number[] = [];
          let page = await feed(`limit=3&${query}`, prefix);
          for (;;) {
            walked.push(...idsOf(page.data));
            if (page.nextCursor === null) break;
            if (page.pagination) assert.equal(page.pagination.nextCursor, page.nextCursor);
            page = await feed(`limit=3&${query}&cursor=${page.nextCursor}`, prefix);
          }
          assert.deepEqual(walked, whole, query);
        }
      });
    }

    it('refuses a cursor made for other filters or another sort (422 naming cursor)', async () => {
      const first = await feed('limit=2&sort=title&search=a');
      assert.ok(first.nextCursor);
      // The same parameters in another order are the same query.
      assert.equal((await feed(`search=a&limit=2&sort=title&cursor=${first.nextCursor}`)).data.length, 2);
      for (const query of [
        `limit=2&sort=-title&search=a&cursor=${first.nextCursor}`,
        `limit=2&sort=title&search=b&cursor=${first.nextCursor}`,
        `limit=2&cursor=${first.nextCursor}`,
      ]) {
        assert.deepEqual(await refusal(query), ['cursor'], query);
      }
      const mine = await t.request('GET', `/api/users/${authors[0]!.id}/posts?limit=1&sort=title`, { token });
      assert.deepEqual(await refusal(`limit=1&sort=title&cursor=${mine.body.pagination.nextCursor}`), ['cursor']);
    });

    it('still reads the seed’s {"id": N} cursor in the seed’s order, with or without filters', async () => {
      const pivot = all[3]!.id;
      const after = await feed(`limit=100&cursor=${encodePostCursor(pivot)}`);
      assert.deepEqual(idsOf(after.data), idsOf(all.filter((p) => p.id < pivot)));
      const author = authors[0]!.id;
      const filtered = await feed(`limit=100&authorId=${author}&cursor=${encodePostCursor(pivot)}`);
      assert.deepEqual(idsOf(filtered.data), idsOf(all.filter((p) => p.id < pivot && p.authorId === author)));
      assert.deepEqual(await refusal(`sort=title&cursor=${encodePostCursor(pivot)}`), ['cursor']);
    });

    it('describes every filter, sort, count and cursor in both OpenAPI documents', async () => {
      const documents = (await generateOpenApiDocuments()) as Map<1 | 2, { paths: Record<string, any> }>; // eslint-disable-line @typescript-eslint/no-explicit-any
      for (const version of [1, 2] as const) {
        for (const path of ['/posts', '/users/{userId}/posts']) {
          const names = (documents.get(version)!.paths[path].get.parameters as { name: string }[]).map((p) => p.name);
          for (const name of ['authorId', 'authorId[in]', 'title[contains]', 'createdAt[gte]', 'search', 'sort']) {
            assert.ok(names.includes(name), `v${version} ${path} lacks ${name}`);
          }
          for (const name of ['count', 'cursor', 'limit']) assert.ok(names.includes(name), `${path} lacks ${name}`);
        }
      }
    });
  });
}
