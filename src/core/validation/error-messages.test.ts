import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DATABASE_INDEPENDENT } from '../../../test/support/dialects.ts';
import { gql } from '../../../test/support/graphql-test-client.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';
import { toErrorDetails } from './ajv.ts';

const DATE_TIME = 'must be an ISO 8601 date-time with a time zone, e.g. 2026-11-21T10:00:00Z';

describe('validation messages', () => {
  it('say JSON Schema types as words, a union with "or"', () => {
    const details = toErrorDetails([
      { instancePath: '/age', keyword: 'type', params: { type: ['integer', 'null'] }, schemaPath: '', message: '' },
      { instancePath: '/n', keyword: 'type', params: { type: 'number' }, schemaPath: '', message: '' },
      { instancePath: '', keyword: 'type', params: { type: 'object' }, schemaPath: '', message: '' },
    ]);
    assert.deepEqual(details, [
      { field: 'age', message: 'must be an integer or null' },
      { field: 'n', message: 'must be a number' },
      { field: 'body', message: 'must be an object' },
    ]);
  });
});

/** DECISIONS §4 and issue 53's list: a 422 says what to send instead. */
for (const dialect of DATABASE_INDEPENDENT) {
  describe(`error messages that name the fix (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(dialect);
    });
    after(() => t?.close());

    const detailsOf = (res: { status: number; body: { error: { details: unknown } } }) => {
      assert.equal(res.status, 422, JSON.stringify(res.body));
      return res.body.error.details;
    };

    it('asks for at most two decimals of a price or an amount filter', async () => {
      const products = await t.request('GET', '/api/v2/products?price[gt]=1.005');
      assert.deepEqual(detailsOf(products), [
        { field: 'price[gt]', message: 'must have at most two decimals (whole cents), e.g. 19.99' },
      ]);
      const orders = await t.request('GET', '/api/v2/orders?amount[lt]=0.001', { token: t.adminToken });
      assert.deepEqual(detailsOf(orders), [
        { field: 'amount[lt]', message: 'must have at most two decimals (whole cents), e.g. 19.99' },
      ]);
    });

    it('asks for a time zone on a date-time, with an example, in query strings and GraphQL filters', async () => {
      for (const path of [
        '/api/v2/products?createdAt[gt]=2026-11-21T10:00:00',
        '/api/v2/products?createdAt[gt]=2026-11-21',
        '/api/v2/users?createdAt[lt]=yesterday',
      ]) {
        const res = await t.request('GET', path, { token: t.adminToken });
        const details = detailsOf(res) as { message: string }[];
        assert.ok(details.length > 0, path);
        for (const detail of details) assert.equal(detail.message, DATE_TIME, path);
      }
      const graphql = await gql(t, '{ users(filter: { createdAt: { gt: "2026-11-21T10:00:00" } }) { id } }', {
        token: t.adminToken,
      });
      assert.match(JSON.stringify(graphql.body.errors), /with a time zone, e\.g\. 2026-11-21T10:00:00Z/);
    });

    it('says a webhook URL must be an http(s) URL, not a regular expression', async () => {
      const res = await t.request('POST', '/api/v2/webhooks', {
        body: { url: 'ftp://shop.example.com/hooks' },
        token: t.adminToken,
      });
      assert.deepEqual(detailsOf(res), [{ field: 'url', message: 'must be an http(s) URL' }]);
    });

    it('says an age must be an integer or null', async () => {
      const user = await t.createUser();
      for (const age of ['forty', 4.5, true]) {
        const res = await t.request('PATCH', `/api/v2/users/${user.id}`, { body: { age }, token: user.token });
        const details = detailsOf(res) as { field: string; message: string }[];
        assert.ok(
          details.some((detail) => detail.field === 'age' && detail.message === 'must be an integer or null'),
          JSON.stringify(details),
        );
        assert.ok(details.every((detail) => !/integer,null/.test(detail.message)));
      }
    });
  });
}
