import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { checkPageRules, checkProbes, checkRefusals, probesOf, refusalsOf } from '../../../test/support/list-rules.ts';
import { insertCatalogue, type CatalogueEntry } from '../../../test/support/products.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';
import { PRODUCT_QUERY_V1, PRODUCT_QUERY_V2 } from './products.list.ts';

type Item = Record<string, unknown>;

/** Names that start with a capital and differ early: every collation orders them as JavaScript does. */
const CATALOGUE: CatalogueEntry[] = [
  ['Anvil', 'tools', 1000, 5],
  ['Bucket', 'tools', 1999, 0],
  ['Candle', 'home', 1999, 3],
  ['Drill', 'tools', 500, 10],
  ['Easel', 'art', 7, 1],
  ['Funnel', 'home', 29, 0],
  ['Gauge', 'tools', 2500, 2],
  ['Hammer', 'tools', 100, 1],
];

/**
 * DECISIONS §12 on the products list, from each version's grammar (`created_at` in v1, `createdAt`
 * in v2): every operator of every field beside the seed's parameters keeps what it means (alone and
 * two by AND), each operator a field does not take and each ill-typed value is a 422 naming its
 * parameter, and the count and cursor rules hold.
 */
for (const dialect of DIALECTS) {
  describe(`products list, every operator and refusal (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;

    const get = (path: string) => t.request('GET', path);
    const items = async (path: string) => {
      const res = await get(path);
      assert.equal(res.status, 200, `${path}: ${res.text}`);
      return res.body.data as Item[];
    };

    before(async () => {
      t = await startTestServer(dialect);
      await insertCatalogue(t.server.db, CATALOGUE);
    });
    after(() => t?.close());

    for (const [prefix, grammar] of [
      ['/api/v1', PRODUCT_QUERY_V1],
      ['/api/v2', PRODUCT_QUERY_V2],
    ] as const) {
      it(`keeps what each operator of each field means, alone and two by AND (${prefix})`, async () => {
        const path = `${prefix}/products`;
        const whole = await items(`${path}?limit=100`);
        assert.equal(whole.length, CATALOGUE.length);
        const keys = async (query: string) => (await items(`${path}?limit=100&${query}`)).map((i) => i.id);
        const probes = probesOf({ grammar, whole, key: (item) => item.id as number });
        await checkProbes(probes, keys);
      });

      it(`answers 422 naming the parameter for each operator a field does not take and each ill-typed value (${prefix})`, async () => {
        await checkRefusals(refusalsOf(grammar), (query) => get(`${prefix}/products?${query}`));
      });

      it(`leaves out the total with count=none, estimates exactly below the limit, ends with a null cursor and refuses another query's cursor (${prefix})`, async () => {
        await checkPageRules({
          get: (query) => get(`${prefix}/products?${query}`),
          filter: 'stock[gte]=1',
          otherFilter: 'stock[gte]=2',
          otherSort: 'sort=-price',
        });
      });
    }
  });
}
