import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { observeQueries } from '../../core/db/database.ts';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { GRAPHQL_TEST_ENV, gql } from '../../../test/support/graphql-test-client.ts';
import { servedRoutes } from '../../../test/support/served-routes.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

/**
 * DECISIONS §19, "a trashed item is gone for every reader": generated over the route table and the
 * GraphQL schema, so a read path added later is tried too. Every trashed item carries the word MARK in a
 * text field; no answer of any GET route (each path parameter filled with live and trashed ids, with
 * search, include and facets variants) nor of any Query field may show it.
 */
const MARK = 'zzqtrashmark';

/**
 * Path parameters that name no trashable item (their routes are still tried, with an id that exists or not).
 * An import (DECISIONS §18) is a job, not an item of the trash: its status, errors and cancel are tried too.
 */
const OTHER_PARAMETERS = new Set(['orderId', 'reportId', 'webhookId', 'deliveryId', 'importId']);

const QUERY_VARIANTS = [
  '',
  `?q=${MARK}`,
  `?search=${MARK}`,
  '?include=posts',
  '?include=comments',
  '?include=author',
  '?include=post',
  '?include=author,comments',
  '?facets=category',
  '?count=exact',
  '?limit=100',
];

for (const dialect of DIALECTS) {
  describe(`a trashed item is absent from every read path (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    const ids: Record<string, number[]> = {};

    before(async () => {
      t = await startTestServer(dialect, { ...GRAPHQL_TEST_ENV, GRAPHQL_INTROSPECTION: 'true' });
      const admin = { token: t.adminToken };
      const alice = await t.createUser({ name: 'Alice Live' });
      const bob = await t.createUser({ name: `Bob ${MARK}` });
      const post = (user: { id: number; token: string }, title: string) =>
        t.request('POST', `/api/v2/users/${user.id}/posts`, { token: user.token, body: { title, content: title } });
      const comment = (postId: number, user: { token: string }, text: string) =>
        t.request('POST', `/api/v2/posts/${postId}/comments`, { token: user.token, body: { text } });
      const livePost = (await post(alice, 'A live post')).body.id as number;
      const trashedPost = (await post(alice, `A post ${MARK}`)).body.id as number;
      await comment(trashedPost, alice, `On a trashed post ${MARK}`);
      const liveComment = (await comment(livePost, alice, 'A live comment')).body.id as number;
      const trashedComment = (await comment(livePost, alice, `A comment ${MARK}`)).body.id as number;
      await comment(livePost, bob, `Bob's comment ${MARK}`);
      await post(bob, `Bob's post ${MARK}`);
      await t.request('POST', `/api/v2/comments/${liveComment}/likes`, { token: bob.token });
      const product = (name: string) =>
        t.request('POST', '/api/v2/products', {
          ...admin,
          body: { name, category: name.includes(MARK) ? MARK : 'home', price: 3, stock: 1, description: name },
        });
      const liveProduct = (await product('A live lamp')).body.id as number;
      const trashedProduct = (await product(`A lamp ${MARK}`)).body.id as number;
      // Not vacuous: before the deletes, a search finds the marked items.
      const before = await t.request('GET', `/api/v2/posts?q=${MARK}`, admin);
      assert.ok(before.text.includes(MARK), before.text);
      for (const path of [
        `/api/v2/posts/${trashedPost}`,
        `/api/v2/posts/${livePost}/comments/${trashedComment}`,
        `/api/v2/products/${trashedProduct}`,
        `/api/v2/users/${bob.id}`,
      ]) {
        assert.equal((await t.request('DELETE', path, admin)).status, 204, path);
      }
      Object.assign(ids, {
        userId: [alice.id, bob.id],
        customerId: [alice.id, bob.id],
        postId: [livePost, trashedPost],
        commentId: [liveComment, trashedComment],
        productId: [liveProduct, trashedProduct],
      });
    });
    after(() => t?.close());

    it('no GET route of /api/v1 or /api/v2 shows it, and no list reads the trash', async () => {
      const routes = servedRoutes(t.server.app.http).filter((route) => /^GET \/api\/v[12]\//.test(route));
      assert.ok(routes.length > 20, `the route table read: ${routes.length} routes`);
      let tried = 0;
      let lists = 0;
      for (const route of routes) {
        const template = route.slice('GET '.length);
        // The event feed is the record of changes (kept EVENT_RETENTION_HOURS), not a read of items: it told
        // of the item's creation before it was deleted. Erasure (not the trash) scrubs it.
        if (/^\/api\/v[12]\/events/.test(template)) continue;
        // Likewise the history (revisions and the audit): §19 keeps a trashed item's revisions readable to
        // whoever may see it in the trash; retention and erasure (not the trash) remove them.
        if (/\/revisions(\/|$)|^\/api\/v2\/audit/.test(template)) continue;
        const names = [...template.matchAll(/:(\w+)/g)].map((m) => m[1]!);
        const unknown = names.filter((name) => !(name in ids) && !OTHER_PARAMETERS.has(name));
        assert.deepEqual(unknown, [], `${route}: a path parameter this test does not know: add it`);
        let paths = [template];
        for (const name of names) {
          const values = ids[name] ?? [1];
          paths = paths.flatMap((path) => values.map((value) => path.replace(`:${name}`, String(value))));
        }
        // A list (its last segment no id) never reads the trash: its cost is the same with a trash of any size.
        const isList = !/\/:\w+$/.test(template);
        for (const path of paths) {
          for (const variant of QUERY_VARIANTS) {
            const statements: string[] = [];
            const stop = observeQueries(t.server.db, (text) => statements.push(text));
            const res = await t.request('GET', `${path}${variant}`, { token: t.adminToken });
            stop();
            tried += 1;
            assert.ok(res.status < 500, `${path}${variant}: ${res.status} ${res.text}`);
            assert.ok(!res.text.toLowerCase().includes(MARK), `${path}${variant} shows a trashed item: ${res.text}`);
            if (isList && res.status === 200) {
              const reading = statements.filter((text) => text.includes('trash_items'));
              assert.deepEqual(reading, [], `${path}${variant} reads the trash`);
              lists += 1;
            }
          }
        }
      }
      assert.ok(tried > 200, `requests made: ${tried}`);
      assert.ok(lists > 50, `lists answered: ${lists}`);
    });

    it('no GraphQL Query field shows it', async () => {
      const schema = await gql(
        t,
        `{ __schema { queryType { name } types { name kind
            fields { name type { ...T } args { name type { ...T } } } } } }
         fragment T on __Type { kind name ofType { kind name ofType { kind name ofType { kind name } } } }`,
        { token: t.adminToken },
      );
      assert.equal(schema.status, 200, schema.text);
      type TypeRef = { kind: string; name: string | null; ofType: TypeRef | null };
      type Field = { name: string; type: TypeRef; args: { name: string; type: TypeRef }[] };
      const types = new Map<string, { kind: string; fields: Field[] | null }>(
        schema.body.data.__schema.types.map((type: { name: string; kind: string; fields: Field[] | null }) => [
          type.name,
          type,
        ]),
      );
      const named = (ref: TypeRef): TypeRef => (ref.ofType ? named(ref.ofType) : ref);
      const required = (ref: TypeRef) => ref.kind === 'NON_NULL';
      /** Every field without required arguments, scalars read, objects followed `depth` levels. */
      function selection(typeName: string, depth: number): string {
        const type = types.get(typeName);
        if (!type?.fields) return '';
        const parts: string[] = [];
        for (const field of type.fields) {
          if (field.args.some((arg) => required(arg.type))) continue;
          const target = named(field.type);
          if (target.kind === 'SCALAR' || target.kind === 'ENUM') parts.push(field.name);
          else if ((target.kind === 'OBJECT' || target.kind === 'INTERFACE') && depth > 0) {
            const inner = selection(target.name!, depth - 1);
            if (inner) parts.push(`${field.name} { ${inner} }`);
          }
        }
        return parts.join(' ');
      }
      const query = types.get(schema.body.data.__schema.queryType.name)!;
      let tried = 0;
      for (const field of query.fields!) {
        const target = named(field.type);
        const inner = selection(target.name!, 2);
        const requiredArgs = field.args.filter((arg) => required(arg.type));
        const idArg = requiredArgs.find((arg) => arg.name === 'id');
        if (requiredArgs.length > (idArg ? 1 : 0)) continue;
        const values = idArg ? Object.values(ids).flat() : [undefined];
        for (const value of values) {
          const args = value === undefined ? '' : `(id: "${value}")`;
          const res = await gql(t, `{ ${field.name}${args}${inner ? ` { ${inner} }` : ''} }`, { token: t.adminToken });
          tried += 1;
          assert.ok(res.status < 500, `${field.name}: ${res.status} ${res.text}`);
          assert.ok(
            !res.text.toLowerCase().includes(MARK),
            `Query.${field.name}${args} shows a trashed item: ${res.text}`,
          );
        }
      }
      assert.ok(tried > 10, `queries made: ${tried}`);
    });
  });
}
