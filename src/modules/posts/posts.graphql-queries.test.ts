import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { errorCodes, gql, GRAPHQL_TEST_ENV } from '../../../test/support/graphql-test-client.ts';
import { seedPosts, type ListedPost } from '../../../test/support/posts.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

const POSTS = `query ($authorId: ID, $filter: PostFilter, $orderBy: [PostOrder!], $limit: Int, $offset: Int) {
  posts(authorId: $authorId, filter: $filter, orderBy: $orderBy, limit: $limit, offset: $offset) { id title }
}`;
const POSTS_CONNECTION = `query ($authorId: ID, $filter: PostFilter, $orderBy: [PostOrder!], $limit: Int, $after: String) {
  postsConnection(authorId: $authorId, filter: $filter, orderBy: $orderBy, limit: $limit, after: $after) {
    nodes { id author { id } }
    pageInfo { hasNextPage endCursor }
  }
}`;
const USERS_CONNECTION = `query ($filter: UserFilter, $orderBy: [UserOrder!], $limit: Int, $after: String) {
  usersConnection(filter: $filter, orderBy: $orderBy, limit: $limit, after: $after) {
    nodes { id name }
    pageInfo { hasNextPage endCursor }
  }
}`;

type Connection = { nodes: { id: string }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } };

/** DECISIONS §12 through GraphQL: `posts(filter, orderBy)`, and `postsConnection`/`usersConnection` by key. */
for (const dialect of DIALECTS) {
  describe(`posts GraphQL filter, orderBy and connections (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let token: string;
    let authors: { id: number; token: string }[];
    let all: ListedPost[];

    const ask = async (query: string, variables: Record<string, unknown>) => {
      const res = await gql(t, query, { variables, token });
      assert.equal(res.status, 200, res.text);
      return res;
    };
    const rest = async (query: string) =>
      ((await t.request('GET', `/api/posts?limit=100&${query}`, { token })).body.data as ListedPost[]).map((p) => p.id);
    const ids = (items: { id: string }[]) => items.map((item) => Number(item.id));

    /** Walks a connection to its end, `limit` at a time. */
    async function walk(query: string, field: string, variables: Record<string, unknown>) {
      const walked: number[] = [];
      let after: string | null = null;
      for (let pages = 0; pages < 50; pages += 1) {
        const res = await ask(query, { ...variables, limit: 2, after });
        const page = res.body.data[field] as Connection;
        walked.push(...ids(page.nodes));
        assert.equal(page.pageInfo.hasNextPage, page.pageInfo.endCursor !== null);
        if (!page.pageInfo.hasNextPage) return walked;
        after = page.pageInfo.endCursor;
      }
      assert.fail('the walk did not end');
    }

    before(async () => {
      t = await startTestServer(dialect, GRAPHQL_TEST_ENV);
      ({ authors, all } = await seedPosts(t));
      token = authors[0]!.token;
    });
    after(() => t?.close());

    it('filters and orders posts as the REST list does, with authorId beside them', async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ filter: { search: { contains: 'alpha' } } }, 'search=alpha'],
        [{ filter: { title: { gte: 'Kappa' } }, orderBy: ['TITLE_DESC'] }, 'title[gte]=Kappa&sort=-title'],
        [{ orderBy: ['AUTHOR_ID_ASC', 'CREATED_AT_DESC'] }, 'sort=authorId,-createdAt'],
        [
          { authorId: String(authors[1]!.id), orderBy: ['CREATED_AT_ASC'] },
          `authorId=${authors[1]!.id}&sort=createdAt`,
        ],
        [
          { filter: { authorId: { in: [authors[0]!.id, authors[2]!.id] }, createdAt: { lt: '2026-01-01T06:00:00Z' } } },
          `authorId[in]=${authors[0]!.id},${authors[2]!.id}&createdAt[lt]=2026-01-01T06:00:00Z`,
        ],
      ];
      for (const [variables, query] of cases) {
        const res = await ask(POSTS, { limit: 100, ...variables });
        assert.deepEqual(ids(res.body.data.posts), await rest(query), query);
      }
      // offset still pages as the seed's list does.
      const paged = await ask(POSTS, { limit: 2, offset: 2, orderBy: ['TITLE_ASC'] });
      assert.deepEqual(ids(paged.body.data.posts), (await rest('sort=title')).slice(2, 4));
      const unfiltered = await ask(POSTS, { limit: 100 });
      assert.deepEqual(ids(unfiltered.body.data.posts), ids(all.map((p) => ({ id: String(p.id) }))));
    });

    it('refuses ill-typed filters as BAD_USER_INPUT naming the argument', async () => {
      for (const [filter, field] of [
        [{ createdAt: { gt: 'yesterday' } }, 'filter.createdAt.gt'],
        [{ search: { contains: '' } }, 'filter.search.contains'],
      ] as const) {
        const res = await ask(POSTS, { filter });
        assert.deepEqual(errorCodes(res), ['BAD_USER_INPUT'], res.text);
        assert.equal(res.body.errors[0].extensions.details[0].field, field);
      }
      // An operator a field does not take is refused by the schema itself.
      const res = await gql(t, '{ posts(filter: {authorId: {contains: "1"}}) { id } }', { token });
      assert.ok(res.body.errors?.length, res.text);
    });

    it('walks postsConnection by key to the end, each post once and in the list’s order', async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{}, ''],
        [{ orderBy: ['TITLE_ASC'] }, 'sort=title'],
        [{ filter: { search: { contains: 'e' } }, orderBy: ['CREATED_AT_DESC'] }, 'search=e&sort=-createdAt'],
        [{ authorId: String(authors[2]!.id) }, `authorId=${authors[2]!.id}`],
      ];
      for (const [variables, query] of cases) {
        assert.deepEqual(await walk(POSTS_CONNECTION, 'postsConnection', variables), await rest(query), query);
      }
      const first = await ask(POSTS_CONNECTION, { limit: 1 });
      assert.equal(Number(first.body.data.postsConnection.nodes[0].author.id), all[0]!.authorId);
    });

    it('refuses an `after` made for another order as BAD_USER_INPUT naming after', async () => {
      const first = await ask(POSTS_CONNECTION, { limit: 2, orderBy: ['TITLE_ASC'] });
      const after = first.body.data.postsConnection.pageInfo.endCursor as string;
      for (const variables of [{ orderBy: ['TITLE_DESC'], after }, { after: 'not-a-cursor' }]) {
        const res = await ask(POSTS_CONNECTION, { limit: 2, ...variables });
        assert.deepEqual(errorCodes(res), ['BAD_USER_INPUT'], res.text);
        assert.equal(res.body.errors[0].extensions.details[0].field, 'after');
      }
    });

    it('walks usersConnection by key as the users list orders and filters', async () => {
      for (const variables of [{}, { orderBy: ['NAME_DESC'] }, { filter: { name: { contains: 'e' } } }]) {
        const res = await ask(
          'query ($filter: UserFilter, $orderBy: [UserOrder!]) { users(filter: $filter, orderBy: $orderBy, limit: 100) { id } }',
          variables,
        );
        assert.deepEqual(await walk(USERS_CONNECTION, 'usersConnection', variables), ids(res.body.data.users));
      }
      const denied = await ask(USERS_CONNECTION, { filter: { email: { contains: 'x' } } });
      assert.deepEqual(errorCodes(denied), ['FORBIDDEN']);
    });

    it('costs a connection’s nodes by its limit', async () => {
      const query = (n: number) =>
        `{ usersConnection(limit: ${n}) { nodes { posts(limit: 100) { comments(limit: 100) { id } } } pageInfo { endCursor } } }`;
      const cheap = await gql(t, query(2), { token });
      assert.equal(cheap.body.errors, undefined, cheap.text);
      const costly = await gql(t, query(5), { token });
      assert.equal(costly.body.errors?.[0]?.extensions?.guard, 'cost', costly.text);
      // 1 (the connection) + 5 nodes × (1 + 100 posts × (1 + 100 comments)) + 1 (pageInfo)
      assert.equal(costly.body.errors[0].extensions.actual, 1 + 5 * (1 + 100 * (1 + 100)) + 1);
    });
  });
}
