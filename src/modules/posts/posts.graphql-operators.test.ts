import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isSortable, operatorsOf, type FieldRule, type ListGrammar } from '../../core/querying/list-grammar.ts';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { errorCodes, gql, GRAPHQL_TEST_ENV } from '../../../test/support/graphql-test-client.ts';
import { probesOf, queryOf } from '../../../test/support/list-rules.ts';
import { seedPosts } from '../../../test/support/posts.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';
import { USER_QUERY } from '../users/users.query.ts';
import { POST_QUERY } from './posts.query.ts';

type Item = Record<string, unknown>;

const LISTS = {
  users: {
    grammar: USER_QUERY,
    query: `query ($filter: UserFilter, $orderBy: [UserOrder!], $limit: Int, $offset: Int) {
      users(filter: $filter, orderBy: $orderBy, limit: $limit, offset: $offset) { id } }`,
    rest: '/api/users',
  },
  posts: {
    grammar: POST_QUERY,
    query: `query ($filter: PostFilter, $orderBy: [PostOrder!], $limit: Int, $offset: Int) {
      posts(filter: $filter, orderBy: $orderBy, limit: $limit, offset: $offset) { id } }`,
    rest: '/api/posts',
  },
} as const;

const constantOf = (name: string) => name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();
const ILL_TYPED: Partial<Record<FieldRule['type'], unknown>> = { timestamp: 'yesterday', enum: 'no-such', text: '' };

/**
 * DECISIONS §12 through GraphQL, from the grammars: `users(limit, offset, filter, orderBy)` and
 * `posts(authorId, limit, offset, filter, orderBy)` take every field's every operator as an input field
 * and keep what the REST parameter means, order by every sortable field both ways as REST's `sort`
 * does, page by offset, and name the argument of an ill-typed value in BAD_USER_INPUT.
 */
for (const dialect of DIALECTS) {
  describe(`GraphQL users and posts, every operator and order (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    const whole = new Map<keyof typeof LISTS, Item[]>();

    const ask = async (list: keyof typeof LISTS, variables: Record<string, unknown>) => {
      const res = await gql(t, LISTS[list].query, { variables: { limit: 100, ...variables }, token: t.adminToken });
      assert.equal(res.status, 200, res.text);
      return res;
    };
    const idsOf = async (list: keyof typeof LISTS, variables: Record<string, unknown>) => {
      const res = await ask(list, variables);
      assert.equal(res.body.errors, undefined, `${JSON.stringify(variables)}: ${res.text}`);
      return (res.body.data[list] as { id: string }[]).map((item) => Number(item.id));
    };
    const rest = async (list: keyof typeof LISTS, query: string) => {
      const res = await t.request('GET', `${LISTS[list].rest}?limit=100&${query}`, { token: t.adminToken });
      assert.equal(res.status, 200, `${query}: ${res.text}`);
      return (res.body.data as Item[]).map((item) => item.id as number);
    };

    before(async () => {
      t = await startTestServer(dialect, GRAPHQL_TEST_ENV);
      await seedPosts(t);
      for (const [name, age, status] of [
        ['Ann', 18, 'active'],
        ['Bea', null, 'inactive'],
        ['Cal', 30, 'suspended'],
      ] as const) {
        await t.createUser({ name, age, status });
      }
      for (const list of Object.keys(LISTS) as (keyof typeof LISTS)[]) {
        const res = await t.request('GET', `${LISTS[list].rest}?limit=100`, { token: t.adminToken });
        whole.set(list, res.body.data as Item[]);
      }
    });
    after(() => t?.close());

    for (const list of Object.keys(LISTS) as (keyof typeof LISTS)[]) {
      const grammar: ListGrammar = LISTS[list].grammar;

      it(`${list}: keeps what each operator of each field means, as the REST parameter does`, async () => {
        const valuesOf = (item: Item, field: string) =>
          field === 'search' ? [item.title, item.content] : [item[field] ?? null];
        const probes = probesOf({ grammar, whole: whole.get(list)!, key: (item) => item.id as number, valuesOf });
        for (const probe of probes) {
          const filter = { [probe.field]: { [probe.operator]: probe.value } };
          assert.deepEqual(await idsOf(list, { filter }), probe.expected, queryOf(probe));
        }
      });

      it(`${list}: orders by every sortable field both ways as REST's sort, and pages by offset`, async () => {
        for (const [field, rule] of Object.entries<FieldRule>(grammar.fields)) {
          if (!isSortable(rule)) continue;
          for (const [suffix, sign] of [
            ['ASC', ''],
            ['DESC', '-'],
          ] as const) {
            const orderBy = [`${constantOf(field)}_${suffix}`];
            assert.deepEqual(await idsOf(list, { orderBy }), await rest(list, `sort=${sign}${field}`), orderBy[0]);
          }
        }
        const all = await rest(list, '');
        assert.deepEqual(await idsOf(list, { limit: 2, offset: 1 }), all.slice(1, 3));
      });

      it(`${list}: refuses an ill-typed value as BAD_USER_INPUT naming filter.<field>.<operator>`, async () => {
        for (const [field, rule] of Object.entries<FieldRule>(grammar.fields)) {
          const value = ILL_TYPED[rule.type];
          if (value === undefined) continue;
          const operator = rule.type === 'text' ? 'contains' : 'eq';
          if (!operatorsOf(rule).includes(operator)) continue;
          const res = await ask(list, { filter: { [field]: { [operator]: value } } });
          assert.deepEqual(errorCodes(res), ['BAD_USER_INPUT'], `${field}: ${res.text}`);
          assert.equal(res.body.errors[0].extensions.details[0].field, `filter.${field}.${operator}`);
        }
      });
    }
  });
}
