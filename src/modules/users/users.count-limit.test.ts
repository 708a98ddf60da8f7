import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

interface Pagination {
  total?: number;
  totalEstimated?: boolean;
}

/** Rows a test server gets: more than a COUNT_EXACT_LIMIT of 5 match each filter, fewer than the default. */
const MATCHING = 8;

/**
 * DECISIONS §12: `count=estimated` gives the exact total while it is at most `COUNT_EXACT_LIMIT` (a
 * setting, default 10,000), and above it PostgreSQL's estimate marked `totalEstimated` (SQLite has no
 * planner's estimate: it counts). Users, posts and a post's comments, each module given the setting.
 */
for (const dialect of DIALECTS) {
  describe(`COUNT_EXACT_LIMIT (${dialect.name})`, { skip: dialect.skip }, () => {
    const servers: TestServer[] = [];
    let limited: TestServer;
    let defaults: TestServer;
    /** The paths of each list, with a filter no counter answers (the rows are counted). */
    const paths = new Map<TestServer, string[]>();

    /** MATCHING users of age 40, each with a post titled "counted …", and MATCHING comments on one post. */
    async function populate(t: TestServer) {
      const authors = [];
      for (let i = 0; i < MATCHING; i += 1) authors.push(await t.createUser({ name: `Counted ${i}`, age: 40 }));
      const postIds: number[] = [];
      for (const author of authors) {
        const res = await t.request('POST', `/api/users/${author.id}/posts`, {
          token: author.token,
          body: { title: `counted ${author.id}`, content: 'text' },
        });
        assert.equal(res.status, 201, res.text);
        postIds.push((res.body as { id: number }).id);
      }
      for (const author of authors) {
        const res = await t.request('POST', `/api/posts/${postIds[0]}/comments`, {
          token: author.token,
          body: { text: 'a comment' },
        });
        assert.equal(res.status, 201, res.text);
      }
      paths.set(t, [
        '/api/users?age[gte]=40',
        '/api/v2/users?age[gte]=40',
        '/api/posts?title[contains]=counted',
        `/api/posts/${postIds[0]}/comments?id[gte]=1`,
      ]);
    }

    const pagination = async (t: TestServer, path: string) => {
      const separator = path.includes('?') ? '&' : '?';
      const res = await t.request('GET', `${path}${separator}count=estimated&limit=2`, { token: t.adminToken });
      assert.equal(res.status, 200, `${path}: ${res.text}`);
      return (res.body as { pagination: Pagination }).pagination;
    };

    before(async () => {
      limited = await startTestServer(dialect, { COUNT_EXACT_LIMIT: '5' });
      defaults = await startTestServer(dialect);
      servers.push(limited, defaults);
      for (const t of servers) await populate(t);
    });
    after(async () => {
      for (const t of servers) await t.close();
    });

    if (dialect.name === 'postgres') {
      it('estimates a total above COUNT_EXACT_LIMIT=5 and says so with totalEstimated', async () => {
        for (const path of paths.get(limited)!) {
          const page = await pagination(limited, path);
          assert.equal(page.totalEstimated, true, path);
          // At least the limit plus one were counted before the estimate was asked for.
          assert.ok(typeof page.total === 'number' && page.total > 5, `${path}: ${page.total}`);
        }
      });
    } else {
      it('counts exactly above COUNT_EXACT_LIMIT=5 (SQLite has no estimate)', async () => {
        for (const path of paths.get(limited)!) {
          const page = await pagination(limited, path);
          assert.equal(page.totalEstimated, undefined, path);
          assert.equal(page.total, MATCHING, path);
        }
      });
    }

    it('gives the exact total at or below COUNT_EXACT_LIMIT=5', async () => {
      const page = await pagination(limited, '/api/users?age[gte]=40&name[contains]=Counted%201');
      assert.deepEqual([page.total, page.totalEstimated], [1, undefined]);
    });

    it('gives the exact total of the same lists with the default limit (10,000)', async () => {
      for (const path of paths.get(defaults)!) {
        const page = await pagination(defaults, path);
        assert.deepEqual([page.total, page.totalEstimated], [MATCHING, undefined], path);
      }
    });
  });
}
