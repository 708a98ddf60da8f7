import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { Client } from 'openapi-fetch';
import { DATABASE_INDEPENDENT } from '../support/dialects.ts';
import { QUIET_ENV } from '../support/orders.ts';
import { checkedClient } from './checked-client.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import type { paths } from './api-v2.generated.ts';

/**
 * The products list's `in_stock` through the client generated from the v2 document: the document types it
 * so a client may send the boolean `true` (tsc --strict refuses this file otherwise), and the seed's rule
 * holds: only `true` acts, whatever else is sent is ignored.
 */
for (const dialect of DATABASE_INDEPENDENT) {
  describe(`the typed v2 client's in_stock (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let client: Client<paths>;
    let stocked: number;
    let soldOut: number;
    before(async () => {
      t = await startTestServer(dialect, QUIET_ENV);
      client = checkedClient(t);
      const create = async (stock: number) => {
        const res = await t.request('POST', '/api/v2/products', {
          body: { name: `Stock ${stock}`, category: 'in-stock-test', price: 5, stock },
          token: t.adminToken,
        });
        assert.equal(res.status, 201, res.text);
        return res.body.id as number;
      };
      stocked = await create(5);
      soldOut = await create(0);
    });
    after(() => t?.close());

    const idsWith = async (inStock: boolean | string | undefined): Promise<number[]> => {
      const query =
        inStock === undefined ? { category: 'in-stock-test' } : { category: 'in-stock-test', in_stock: inStock };
      const { data, response } = await client.GET('/products', { params: { query } });
      assert.equal(response.status, 200);
      return data!.data.map((product) => product.id!).sort((a, b) => a - b);
    };

    it('is typed in the v2 document so that the boolean true is valid, as the text "true" is', async () => {
      const document = (await t.request('GET', '/api/v2/openapi.json')).body;
      const parameter = (document.paths['/products'].get.parameters as { name: string; schema: object }[]).find(
        (candidate) => candidate.name === 'in_stock',
      );
      assert.ok(parameter, 'in_stock is documented');
      const validate = new Ajv2020({ strict: false }).compile(parameter.schema);
      for (const value of [true, 'true', 'yes']) assert.equal(validate(value), true, JSON.stringify(value));
    });

    it('filters to products in stock when a client sends the boolean true', async () => {
      assert.deepEqual(await idsWith(true), [stocked]);
    });

    it('keeps the seed’s text rule: "true" acts, false and any other value are ignored', async () => {
      const everything = [stocked, soldOut].sort((a, b) => a - b);
      assert.deepEqual(await idsWith(undefined), everything);
      assert.deepEqual(await idsWith('true'), [stocked]);
      for (const ignored of [false, 'false', 'yes', '1', 'TRUE']) {
        assert.deepEqual(await idsWith(ignored), everything, String(ignored));
      }
    });
  });
}
