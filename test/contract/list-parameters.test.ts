import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isSortable, operatorsOf, type FieldRule, type ListGrammar } from '../../src/core/querying/list-grammar.ts';
import { COMMENT_QUERY } from '../../src/modules/comments/comments.query.ts';
import { LIKE_QUERY } from '../../src/modules/likes/likes.query.ts';
import { ORDER_QUERY } from '../../src/modules/orders/orders.query.ts';
import { DIALECTS } from '../support/dialects.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The lists whose parameters are checked here, each with its grammar and the kind its `include` embeds. */
const LISTS: [path: string, grammar: ListGrammar, kind: string][] = [
  ['/posts/{postId}/comments', COMMENT_QUERY, 'comment'],
  ['/comments/{commentId}/likes', LIKE_QUERY, 'like'],
  ['/orders', ORDER_QUERY, 'order'],
];

/** The schema a filter parameter must have, from its field's rule (list-query-schema.ts says why). */
function expectedSchema(rule: FieldRule, operator: string, bracketed: boolean): Json {
  if (operator === 'null') return { type: 'boolean' };
  if (operator === 'in' || (rule.type === 'enum' && bracketed)) return { type: 'string' };
  switch (rule.type) {
    case 'integer':
      return { type: 'integer' };
    case 'number':
      return { type: 'number' };
    case 'timestamp':
      return { type: 'string', format: 'date-time' };
    case 'boolean':
      return { type: 'boolean' };
    case 'enum':
      return { enum: rule.values };
    case 'text':
      return { type: 'string' };
  }
}

/**
 * DECISIONS §12: the OpenAPI documents served under /api/v1 and /api/v2 describe the list parameters of
 * a post's comments, a comment's likes and the orders, read from each list's own grammar: `field` and
 * `field[op]` for every operator a field takes (no other), with its value's type, `sort` naming the
 * sortable fields, `count`, `cursor`, and `include` naming every path the service embeds.
 */
for (const dialect of DIALECTS) {
  describe(
    `list parameters in the OpenAPI documents: comments, likes, orders (${dialect.name})`,
    { skip: dialect.skip },
    () => {
      let t: TestServer;
      const documents = new Map<number, Json>();

      before(async () => {
        t = await startTestServer(dialect, { REPORT_WORKER: 'false' });
        for (const version of [1, 2]) {
          const res = await t.request('GET', `/api/v${version}/openapi.json`);
          assert.equal(res.status, 200);
          documents.set(version, res.body as Json);
        }
      });
      after(() => t?.close());

      const parametersOf = (version: number, path: string) => {
        const operation = documents.get(version)!.paths[path]?.get;
        assert.ok(operation, `v${version} documents GET ${path}`);
        return new Map<string, Json>((operation.parameters as Json[]).map((p) => [p.name, p]));
      };

      for (const version of [1, 2]) {
        for (const [path, grammar, kind] of LISTS) {
          it(`describes every filter field[op] of ${path}, with its type, and no other (v${version})`, () => {
            const parameters = parametersOf(version, path);
            const expected = new Set<string>();
            for (const [field, rule] of Object.entries<FieldRule>(grammar.fields)) {
              const plain = parameters.get(field);
              assert.ok(plain, `v${version} ${path} lacks ${field}`);
              assert.equal(plain.in, 'query');
              assert.partialDeepStrictEqual(plain.schema, expectedSchema(rule, rule.plainOperator ?? 'eq', false));
              for (const operator of operatorsOf(rule)) {
                const name = `${field}[${operator}]`;
                expected.add(name);
                const parameter = parameters.get(name);
                assert.ok(parameter, `v${version} ${path} lacks ${name}`);
                assert.equal(parameter.in, 'query', name);
                assert.equal(parameter.required, false, name);
                assert.partialDeepStrictEqual(parameter.schema, expectedSchema(rule, operator, true), name);
                assert.ok(String(parameter.description).startsWith(field), `${name}: ${parameter.description}`);
              }
            }
            const bracketed = [...parameters.keys()].filter((name) => typeof name === 'string' && name.includes('['));
            assert.deepEqual(bracketed.toSorted(), [...expected].toSorted(), `v${version} ${path}`);
          });

          it(`describes sort, count, cursor and include of ${path} (v${version})`, () => {
            const parameters = parametersOf(version, path);
            for (const name of ['page', 'limit', 'sort', 'count', 'cursor', 'include']) {
              assert.ok(parameters.has(name), `v${version} ${path} lacks ${name}`);
            }
            const sortable = Object.entries<FieldRule>(grammar.fields)
              .filter(([, rule]) => isSortable(rule))
              .map(([field]) => field);
            const sort = parameters.get('sort')!;
            const named = /Comma-separated fields \((.*?)\)/.exec(sort.description)?.[1]?.split(', ');
            assert.deepEqual(named, sortable, sort.description);
            assert.match(sort.description, /a leading `-` sorts that field descending/);
            assert.deepEqual(parameters.get('count')!.schema.enum, ['exact', 'estimated', 'none']);
            assert.equal(parameters.get('cursor')!.schema.type, 'string');
            const include = parameters.get('include')!;
            const listed = /a comma list of: (.*?)\. At most/.exec(include.description)?.[1]?.split(', ');
            assert.deepEqual(listed?.toSorted(), t.server.app.services.embedding.paths(kind).toSorted(), path);
            assert.match(include.description, /At most 2 levels; an embedded list holds the first 20/);
          });
        }
      }
    },
  );
}
