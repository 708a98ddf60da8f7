import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import {
  checkPageRules,
  checkSorts,
  checkProbes,
  checkRefusals,
  probesOf,
  refusalsOf,
} from '../../../test/support/list-rules.ts';
import { seedPosts, type ListedPost } from '../../../test/support/posts.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';
import { POST_QUERY } from './posts.query.ts';

const valuesOf = (post: ListedPost, field: string) =>
  field === 'search' ? [post.title, post.content] : [(post as unknown as Record<string, unknown>)[field] ?? null];

/**
 * DECISIONS §12 on `GET /posts` and a user's posts, from the posts grammar itself: every operator of
 * every field keeps what it means, two filters combine with AND, each operator a field does not take
 * and each ill-typed value is a 422 naming its parameter, and the count and cursor rules hold, under
 * /api/v1 and /api/v2.
 */
for (const dialect of DIALECTS) {
  describe(`posts lists, every operator and refusal (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let token: string;
    let authors: { id: number; token: string }[];
    let all: ListedPost[];

    const get = (path: string) => t.request('GET', path, { token });
    const ids = async (path: string) => {
      const res = await get(path);
      assert.equal(res.status, 200, `${path}: ${res.text}`);
      return (res.body.data as ListedPost[]).map((p) => p.id);
    };

    before(async () => {
      t = await startTestServer(dialect);
      ({ authors, all } = await seedPosts(t));
      token = authors[1]!.token;
    });
    after(() => t?.close());

    for (const prefix of ['/api/v1', '/api/v2']) {
      const lists = () => [
        { path: `${prefix}/posts`, whole: all, skip: [] as string[] },
        // Within one author's posts, authorId has one value (another author's is tested in posts.user-queries).
        {
          path: `${prefix}/users/${authors[0]!.id}/posts`,
          whole: all.filter((p) => p.authorId === authors[0]!.id),
          skip: ['authorId'],
        },
      ];

      it(`keeps what each operator of each field means, alone and two by AND (${prefix})`, async () => {
        for (const { path, whole, skip } of lists()) {
          const probes = probesOf({ grammar: POST_QUERY, whole, key: (p) => p.id, valuesOf, skip });
          await checkProbes(probes, (query) => ids(`${path}?limit=100&${query}`));
        }
      });

      it(`sorts by every field both ways and by two, ties by id in the first field's direction (${prefix})`, async () => {
        for (const { path, whole } of lists()) {
          await checkSorts({
            grammar: POST_QUERY,
            whole,
            key: (post) => post.id,
            keysSortedBy: (sort) => ids(`${path}?limit=100&sort=${sort}`),
          });
        }
      });

      it(`answers 422 naming the parameter for each operator a field does not take and each ill-typed value (${prefix})`, async () => {
        for (const { path } of lists()) {
          const queries = [...refusalsOf(POST_QUERY), 'sort=content', 'sort=search'];
          await checkRefusals(queries, (query) => get(`${path}?${query}`));
        }
      });

      it(`leaves out the total with count=none, estimates exactly below the limit, ends with a null cursor and refuses another query's cursor (${prefix})`, async () => {
        await checkPageRules({
          get: (query) => get(`${prefix}/posts?${query}`),
          filter: 'createdAt[gte]=2026-01-01T02:00:00Z',
          otherFilter: 'createdAt[gte]=2026-01-01T03:00:00Z',
          otherSort: 'sort=title',
        });
        await checkPageRules({
          get: (query) => get(`${prefix}/users/${authors[0]!.id}/posts?${query}`),
          filter: 'title[gte]=A',
          otherFilter: 'title[gte]=B',
          otherSort: 'sort=-createdAt',
        });
      });
    }
  });
}
