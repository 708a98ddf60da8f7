import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { DIALECTS } from '../../../test/support/dialects.ts';
import {
  checkPageRules,
  checkSorts,
  checkProbes,
  checkRefusals,
  probesOf,
  refusalsOf,
} from '../../../test/support/list-rules.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';
import { LIKE_QUERY } from '../likes/likes.query.ts';
import { COMMENT_QUERY } from './comments.query.ts';

type Item = Record<string, unknown>;

/**
 * DECISIONS §12 on a post's comments and a comment's likes, from their grammars: every operator of
 * every field keeps what it means (alone and two by AND), each operator a field does not take and each
 * ill-typed value is a 422 naming its parameter, an unknown sort is a 422, and the count and cursor
 * rules hold, under /api/v1 and /api/v2.
 */
for (const dialect of DIALECTS) {
  describe(`comments and likes lists, every operator and refusal (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let token: string;
    let postId: number;
    let commentId: number;

    const get = (path: string) => t.request('GET', path, { token });
    const items = async (path: string) => {
      const res = await get(path);
      assert.equal(res.status, 200, `${path}: ${res.text}`);
      return res.body.data as Item[];
    };
    /** Creation times one hour apart, in an order unlike the keys'. */
    const shuffledTimes = async (
      table: 'comments' | 'comment_likes',
      keys: string[],
      where: (key: string) => string,
    ) => {
      for (const [i, key] of keys.entries()) {
        const at = new Date(Date.UTC(2026, 0, 1, (i * 3) % keys.length)).toISOString();
        await sql`update ${sql.table(table)} set created_at = ${at} where ${sql.raw(where(key))}`.execute(t.server.db);
      }
    };

    before(async () => {
      t = await startTestServer(dialect);
      const people = [];
      for (let i = 0; i < 4; i += 1) people.push(await t.createUser());
      token = people[0]!.token;
      const post = await t.request('POST', `/api/users/${people[0]!.id}/posts`, {
        token,
        body: { title: 'T', content: 'C' },
      });
      postId = post.body.id;
      const commentIds: string[] = [];
      for (let i = 0; i < 8; i += 1) {
        const who = people[(i * 3) % 4]!;
        const res = await t.request('POST', `/api/posts/${postId}/comments`, {
          token: who.token,
          body: { text: `c${i}` },
        });
        commentIds.push(String(res.body.id));
      }
      commentId = Number(commentIds[0]);
      await shuffledTimes('comments', commentIds, (id) => `id = ${Number(id)}`);
      const likers = [...people, await t.createUser()];
      for (const person of likers) await t.request('POST', `/api/comments/${commentId}/likes`, { token: person.token });
      const userIds = likers.map((p) => String(p.id));
      await shuffledTimes('comment_likes', userIds, (id) => `comment_id = ${commentId} and user_id = ${Number(id)}`);
    });
    after(() => t?.close());

    for (const prefix of ['/api/v1', '/api/v2']) {
      const lists = () => [
        { path: `${prefix}/posts/${postId}/comments`, grammar: COMMENT_QUERY, key: 'id' },
        { path: `${prefix}/comments/${commentId}/likes`, grammar: LIKE_QUERY, key: 'userId' },
      ];

      it(`keeps what each operator of each field means, alone and two by AND (${prefix})`, async () => {
        for (const { path, grammar, key } of lists()) {
          const whole = await items(`${path}?limit=100`);
          assert.ok(whole.length >= 5);
          const keys = async (query: string) => (await items(`${path}?limit=100&${query}`)).map((i) => i[key]);
          const probes = probesOf({ grammar, whole, key: (item) => item[key] as number });
          await checkProbes(probes, keys);
        }
      });

      it(`sorts by every field both ways and by two, ties by the key ascending (${prefix})`, async () => {
        for (const { path, grammar, key } of lists()) {
          await checkSorts({
            grammar,
            whole: await items(`${path}?limit=100`),
            key: (item) => item[key] as number,
            keysSortedBy: async (sort) => (await items(`${path}?limit=100&sort=${sort}`)).map((i) => i[key] as number),
          });
        }
      });

      it(`answers 422 naming the parameter for each operator a field does not take, each ill-typed value and an unknown sort (${prefix})`, async () => {
        for (const { path, grammar } of lists()) {
          const queries = [...refusalsOf(grammar), 'sort=text', 'sort=-noSuchField', 'sort=createdAt,createdAt'];
          await checkRefusals(queries, (query) => get(`${path}?${query}`));
        }
      });

      it(`leaves out the total with count=none, estimates exactly below the limit, ends with a null cursor and refuses another query's cursor (${prefix})`, async () => {
        await checkPageRules({
          get: (query) => get(`${prefix}/posts/${postId}/comments?${query}`),
          filter: 'createdAt[gte]=2026-01-01T01:00:00Z',
          otherFilter: 'createdAt[gte]=2026-01-01T02:00:00Z',
          otherSort: 'sort=-createdAt',
        });
        await checkPageRules({
          get: (query) => get(`${prefix}/comments/${commentId}/likes?${query}`),
          filter: 'createdAt[gte]=2026-01-01T01:00:00Z',
          otherFilter: 'userId[gte]=1',
          otherSort: 'sort=-userId',
        });
      });
    }
  });
}
