import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';
import { MAX_DB_INTEGER, MIN_DB_INTEGER, parseId } from './input-rules.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Uploads whose body is not JSON (an image, checked against its type by the route's own parser). */
const RAW_BODIES = new Set(['PUT /users/{userId}/avatar']);

/** Page sizes are clamped to 1–100 (the seed), never stored, so any integer is harmless there. */
const CLAMPED = new Set(['limit']);

/** Every integer schema inside a JSON Schema, with its path. */
function integersOf(schema: Json, path: string): [string, Json][] {
  if (!schema || typeof schema !== 'object') return [];
  const own: [string, Json][] =
    schema.type === 'integer' || (Array.isArray(schema.type) && schema.type.includes('integer'))
      ? [[path, schema]]
      : [];
  const nested = [
    ...Object.entries((schema.properties ?? {}) as Json).flatMap(([name, sub]) => integersOf(sub, `${path}.${name}`)),
    ...(schema.items ? integersOf(schema.items, `${path}[]`) : []),
    ...((schema.anyOf ?? schema.oneOf ?? []) as Json[]).flatMap((sub) => integersOf(sub, path)),
  ];
  return [...own, ...nested];
}

describe('the shared input rules hold for every route', () => {
  it('parses only positive canonical decimal ids within the integer range', () => {
    assert.equal(parseId('1'), 1);
    assert.equal(parseId('2147483647'), 2147483647);
    for (const text of [
      '0',
      '01',
      '0x2',
      ' 2',
      '2 ',
      '+2',
      '-2',
      '2e0',
      '2.0',
      '2147483648',
      '99999999999',
      '',
      '٣',
      '2\u0000',
    ])
      assert.equal(parseId(text), undefined, JSON.stringify(text));
  });

  const dialect = DIALECTS[0]!;
  describe(`the API document (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let document: Json;
    before(async () => {
      t = await startTestServer(dialect);
      document = (await t.request('GET', '/api/v2/openapi.json')).body;
    });
    after(() => t?.close());

    const operations = () =>
      Object.entries(document.paths as Json).flatMap(([path, item]) =>
        ['get', 'post', 'put', 'patch', 'delete']
          .filter((m) => item[m])
          .map((method) => [`${method.toUpperCase()} ${path}`, item[method] as Json] as const),
      );

    it('bounds every integer of every request body and query string to the database integer range (page sizes aside)', () => {
      const unbounded: string[] = [];
      for (const [name, operation] of operations()) {
        const parts: [string, Json][] = [
          ...((operation.parameters ?? []) as Json[])
            .filter((p) => p.in === 'query' && !CLAMPED.has(p.name))
            .map((p): [string, Json] => [`?${p.name}`, p.schema]),
          ...Object.values((operation.requestBody?.content ?? {}) as Json).map((media): [string, Json] => [
            'body',
            media.schema,
          ]),
        ];
        for (const [part, schema] of parts) {
          for (const [path, integer] of integersOf(schema, part)) {
            const bounded =
              typeof integer.maximum === 'number' &&
              integer.maximum <= MAX_DB_INTEGER &&
              (part.startsWith('?') || (typeof integer.minimum === 'number' && integer.minimum >= MIN_DB_INTEGER));
            if (!bounded) unbounded.push(`${name} ${path}`);
          }
        }
      }
      assert.deepEqual(unbounded, []);
    });

    it('declares a body on every POST, PUT and PATCH, so an action POST refuses a body it does not take', () => {
      const bodiless = operations().filter(
        ([name, operation]) => /^(POST|PUT|PATCH) /.test(name) && !operation.requestBody && !RAW_BODIES.has(name),
      );
      assert.deepEqual(
        bodiless.map(([name]) => name),
        [],
      );
    });
  });
});
