import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { statementsOf } from '../../test/support/statements-of.ts';
import { DIALECTS } from '../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../test/support/test-server.ts';
import { errorCodes, gql, GRAPHQL_TEST_ENV } from '../../test/support/graphql-test-client.ts';

const GRAPHQL_RESPONSE = 'application/graphql-response+json';

/** `levels` nested User→posts→author hops, ending in a scalar. */
function nested(levels: number): string {
  const hops = Array.from({ length: levels }, (_, i) => (i % 2 === 0 ? 'posts(limit: 1)' : 'author'));
  return hops.reduceRight((inner, hop) => `${hop} { ${inner} }`, 'id');
}

for (const dialect of DIALECTS) {
  describe(`GraphQL guards (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(dialect, GRAPHQL_TEST_ENV);
    });
    after(() => t?.close());

    /** Runs an operation expecting a guard to refuse it before any resolver, hence before any SQL. */
    async function refused(query: string, variables?: Record<string, unknown>, guard?: string) {
      const { result: res, statements } = await statementsOf(t.server.db, () =>
        gql(t, query, { token: t.adminToken, ...(variables ? { variables } : {}) }),
      );
      assert.equal(res.status, 200);
      assert.equal(res.body.data, undefined, res.text);
      assert.ok(res.body.errors.length > 0);
      assert.ok(
        errorCodes(res).every((code) => code === 'GRAPHQL_VALIDATION_FAILED'),
        res.text,
      );
      assert.deepEqual(statements, [], 'a resolver ran');
      const strict = await gql(t, query, {
        token: t.adminToken,
        accept: GRAPHQL_RESPONSE,
        ...(variables ? { variables } : {}),
      });
      assert.equal(strict.status, 400);
      // The first error of the guard under test (another guard may object too).
      return (
        res.body.errors.find((e: { extensions: { guard?: string } }) => e.extensions.guard === guard) ??
        res.body.errors[0]
      );
    }

    it('accepts a query exactly at the depth limit of 10', async () => {
      // user (1) + 8 hops + id (10)
      const res = await gql(t, `{ user(id: "1") { ${nested(8)} } }`, { token: t.adminToken });
      assert.equal(res.status, 200);
      assert.equal(res.body.errors, undefined, res.text);
    });

    it('refuses a query deeper than 10 levels, fragments included, naming the limit', async () => {
      const error = await refused(`{ user(id: "1") { ${nested(9)} } }`);
      assert.equal(error.message, 'Query depth 11 exceeds the maximum depth of 10');
      assert.deepEqual(error.extensions, { code: 'GRAPHQL_VALIDATION_FAILED', guard: 'depth', limit: 10, actual: 11 });
      assert.deepEqual(error.locations, [{ line: 1, column: 1 }]);
      const viaFragments = await refused(`{ user(id: "1") { ...Deep } } fragment Deep on User { ${nested(9)} }`);
      assert.equal(viaFragments.extensions.guard, 'depth');
    });

    it('refuses an operation whose list sizes multiply past the cost limit, with literal or variable limits', async () => {
      const literal = await refused(
        '{ users(limit: 100) { posts(limit: 100) { comments(limit: 100) { author { name } } } } }',
      );
      assert.equal(literal.extensions.guard, 'cost');
      assert.equal(literal.extensions.actual, 100 * (1 + 100 * (1 + 100 * 2)));
      assert.equal(literal.extensions.limit, 50000);
      const variable = await refused(
        'query ($n: Int) { users(limit: $n) { posts(limit: $n) { comments(limit: $n) { author { name } } } } }',
        { n: 100 },
      );
      assert.equal(variable.extensions.guard, 'cost');
    });

    it('accepts the same shape when its limits keep the cost under the limit', async () => {
      const res = await gql(
        t,
        'query ($n: Int) { users(limit: $n) { posts(limit: $n) { comments(limit: $n) { author { name } } } } }',
        {
          token: t.adminToken,
          variables: { n: 20 },
        },
      );
      assert.equal(res.body.errors, undefined, res.text);
    });

    it('refuses more than 30 aliases', async () => {
      const fields = Array.from({ length: 31 }, (_, i) => `a${i}: id`).join(' ');
      const error = await refused(`{ user(id: "1") { ${fields} } }`);
      assert.equal(error.extensions.guard, 'aliases');
      assert.equal(error.extensions.actual, 31);
      const ok = await gql(t, `{ ${Array.from({ length: 20 }, (_, i) => `a${i}: __typename`).join(' ')} }`);
      assert.equal(ok.body.errors, undefined);
    });

    it('refuses more than 20 root fields, counting those in fragments', async () => {
      const fields = Array.from({ length: 11 }, (_, i) => `u${i}: user(id: "${i + 1}") { id }`).join(' ');
      const more = Array.from({ length: 10 }, (_, i) => `v${i}: user(id: "${i + 1}") { id }`).join(' ');
      const error = await refused(`{ ${fields} ...More } fragment More on Query { ${more} }`, undefined, 'rootFields');
      assert.equal(error.extensions.guard, 'rootFields');
      assert.equal(error.extensions.actual, 21);
      const plain = await refused(`{ ${Array.from({ length: 21 }, () => '__typename').join(' ')} }`);
      assert.equal(plain.extensions.guard, 'rootFields');
      assert.equal(plain.extensions.actual, 21);
    });

    it('serves introspection and GraphiQL outside production', async () => {
      const res = await gql(t, '{ __type(name: "User") { fields { name } } }');
      assert.equal(res.status, 200);
      const names = res.body.data.__type.fields.map((f: { name: string }) => f.name);
      // The seed's fields, then DECISIONS §15's additions.
      assert.deepEqual(names, [
        'id',
        'name',
        'email',
        'age',
        'posts',
        'role',
        'status',
        'emailVerified',
        'createdAt',
        'updatedAt',
      ]);
      const page = await t.request('GET', '/graphiql');
      assert.equal(page.status, 200);
      assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
      assert.match(page.text, /graphiql/i);
    });

    it('declares exactly the seed schema plus limit/offset, Comment.post, the lists’ filters, orders and connections, the posts’ and products’ search, §14’s aggregates, §15’s resources and §19’s post updates and deletes', async () => {
      const res = await gql(
        t,
        '{ __schema { queryType { fields { name args { name } } } mutationType { fields { name } } } c: __type(name: "Comment") { fields { name } } }',
      );
      const queries = Object.fromEntries(
        res.body.data.__schema.queryType.fields.map((f: { name: string; args: { name: string }[] }) => [
          f.name,
          f.args.map((a) => a.name),
        ]),
      );
      assert.deepEqual(queries, {
        user: ['id'],
        users: ['limit', 'offset', 'filter', 'orderBy'], // filter and orderBy: DECISIONS §12
        usersConnection: ['limit', 'after', 'filter', 'orderBy'], // DECISIONS §12's cursor (docs/QUERYING.md)
        // DECISIONS §15: every resource (in the order of the module list).
        order: ['id'],
        orders: ['limit', 'offset', 'filter', 'orderBy'],
        ordersAggregate: ['filter', 'measures', 'groupBy', 'sort', 'limit'], // DECISIONS §14
        product: ['id'],
        products: ['limit', 'offset', 'filter', 'orderBy', 'search'],
        productsAggregate: ['filter', 'search', 'measures', 'groupBy', 'sort', 'limit'],
        post: ['id'],
        posts: ['authorId', 'limit', 'offset', 'filter', 'orderBy', 'search'], // search: DECISIONS §14
        postsConnection: ['authorId', 'limit', 'after', 'filter', 'orderBy', 'search'],
        comment: ['id'],
      });
      assert.deepEqual(
        res.body.data.__schema.mutationType.fields.map((f: { name: string }) => f.name),
        [
          'createUser',
          'updateUser',
          'deleteUser',
          ...['createOrder', 'payOrder', 'cancelOrder', 'refundOrder'],
          ...['createProduct', 'updateProduct', 'deleteProduct'],
          'createPost',
          ...['updatePost', 'deletePost'], // DECISIONS §19: posts are updated and deleted like the other resources
          ...['addComment', 'deleteComment', 'likeComment', 'unlikeComment'],
        ],
      );
      assert.deepEqual(
        res.body.data.c.fields.map((f: { name: string }) => f.name),
        ['id', 'text', 'author', 'post', 'createdAt', 'likes'],
      );
    });
  });

  describe(`GraphQL in production (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(dialect, { NODE_ENV: 'production', ...GRAPHQL_TEST_ENV });
    });
    after(() => t?.close());

    it('refuses introspection and hides GraphiQL, while __typename still works', async () => {
      const res = await gql(t, '{ __schema { types { name } } }');
      assert.ok(errorCodes(res).length > 0);
      assert.ok(
        errorCodes(res).every((code) => code === 'GRAPHQL_VALIDATION_FAILED'),
        res.text,
      );
      assert.match(res.body.errors[0].message, /introspection/i);
      assert.equal(res.body.data, undefined);
      const typename = await gql(t, '{ __typename }');
      assert.deepEqual(typename.body, { data: { __typename: 'Query' } });
      const page = await t.request('GET', '/graphiql');
      assert.equal(page.status, 404);
    });
  });

  describe(`GraphQL in production with the switches on (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(dialect, {
        NODE_ENV: 'production',
        GRAPHQL_INTROSPECTION: 'true',
        GRAPHIQL: 'true',
        GRAPHQL_MAX_DEPTH: '3',
        ...GRAPHQL_TEST_ENV,
      });
    });
    after(() => t?.close());

    it('serves introspection and GraphiQL when enabled, and applies a configured depth limit', async () => {
      const res = await gql(t, '{ __type(name: "Post") { name } }');
      assert.deepEqual(res.body, { data: { __type: { name: 'Post' } } });
      assert.equal((await t.request('GET', '/graphiql')).status, 200);
      const deep = await gql(t, '{ users { posts { author { id } } } }', { token: t.adminToken });
      assert.equal(deep.body.errors[0].message, 'Query depth 4 exceeds the maximum depth of 3');
    });
  });
}
