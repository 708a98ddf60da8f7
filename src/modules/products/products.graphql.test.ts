import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { errorCodes, gql, GRAPHQL_TEST_ENV } from '../../../test/support/graphql-test-client.ts';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { eventsAfter, feedEnd } from '../../../test/support/events.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

const FIELDS = 'id name category price stock image description sku createdAt updatedAt';
const CREATE = `mutation ($input: CreateProductInput!) { createProduct(input: $input) { ${FIELDS} } }`;
const UPDATE = `mutation ($id: ID!, $input: UpdateProductInput!) { updateProduct(id: $id, input: $input) { ${FIELDS} } }`;
const DELETE = 'mutation ($id: ID!) { deleteProduct(id: $id) }';
const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

for (const dialect of DIALECTS) {
  describe(`products GraphQL (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(dialect, GRAPHQL_TEST_ENV);
      for (const [name, category, price, stock] of [
        ['Alpha lamp', 'home', 30.5, 3],
        ['Beta chair', 'home', 12.25, 0],
        ['Gamma pen', 'office', 1.99, 50],
      ] as const) {
        const res = await gql(t, CREATE, {
          variables: { input: { name, category, price, stock } },
          token: t.adminToken,
        });
        assert.equal(res.body.errors, undefined, res.text);
      }
    });
    after(() => t?.close());

    async function createProduct(input: Record<string, unknown>) {
      const res = await gql(t, CREATE, { variables: { input }, token: t.adminToken });
      assert.equal(res.body.errors, undefined, res.text);
      return res.body.data.createProduct as Record<string, unknown> & { id: string };
    }

    describe('reads (public)', () => {
      it("answers a product as v2's REST object without _links, anonymously; null for an unknown or malformed id", async () => {
        const created = await createProduct({ name: 'Delta', category: 'misc', price: 7.1, stock: 2 });
        const res = await gql(t, `query ($id: ID!) { product(id: $id) { ${FIELDS} } }`, {
          variables: { id: created.id },
        });
        assert.equal(res.body.errors, undefined, res.text);
        const rest = await t.request('GET', `/api/v2/products/${created.id}`);
        const { _links, ...view } = rest.body;
        assert.ok(_links);
        assert.deepEqual(res.body.data.product, { ...view, id: String(view.id) });
        assert.equal(res.body.data.product.price, 7.1);
        assert.match(res.body.data.product.createdAt, ISO_MS);
        const missing = await gql(t, '{ a: product(id: "999999") { id } b: product(id: "01") { id } }');
        assert.deepEqual(missing.body.data, { a: null, b: null });
      });

      it('lists products filtered and ordered as the REST list, with limit and offset', async () => {
        const home = await gql(
          t,
          '{ products(filter: { category: { eq: "home" } }, orderBy: [PRICE_DESC]) { name price } }',
        );
        assert.equal(home.body.errors, undefined, home.text);
        assert.deepEqual(home.body.data.products, [
          { name: 'Alpha lamp', price: 30.5 },
          { name: 'Beta chair', price: 12.25 },
        ]);
        const inStock = await gql(
          t,
          '{ products(filter: { stock: { gt: 0 }, price: { lt: 31 } }, orderBy: [NAME_ASC]) { name } }',
        );
        assert.deepEqual(
          inStock.body.data.products.map((p: { name: string }) => p.name),
          ['Alpha lamp', 'Delta', 'Gamma pen'],
        );
        const page = await gql(t, '{ products(limit: 1, offset: 1, orderBy: [NAME_ASC]) { name } }');
        assert.deepEqual(page.body.data.products, [{ name: 'Beta chair' }]);
      });

      it('searches as REST’s q: best match first with its score, filters combined; a bad search names `search`', async () => {
        const res = await gql(
          t,
          '{ products(search: "lamp or chair", filter: { category: { eq: "home" } }) { name searchScore } }',
        );
        assert.equal(res.body.errors, undefined, res.text);
        const found = res.body.data.products as { name: string; searchScore: number }[];
        assert.deepEqual(found.map((p) => p.name).sort(), ['Alpha lamp', 'Beta chair']);
        assert.ok(
          found.every((p) => typeof p.searchScore === 'number' && p.searchScore > 0),
          res.text,
        );
        const rest = await t.request('GET', '/api/v2/products?q=lamp%20or%20chair&category=home');
        assert.deepEqual(
          found.map((p) => p.name),
          (rest.body as { data: { name: string }[] }).data.map((p) => p.name),
          'the same order as REST',
        );
        const plain = await gql(t, '{ products(limit: 1) { searchScore } }');
        assert.deepEqual(plain.body.data.products, [{ searchScore: null }]);
        const bad = await gql(t, '{ products(search: "-lamp") { id } }');
        assert.deepEqual(errorCodes(bad), ['BAD_USER_INPUT']);
        assert.match(JSON.stringify(bad.body.errors[0].extensions), /"field":"search"/);
      });

      it('names a bad filter value as its argument with BAD_USER_INPUT', async () => {
        const res = await gql(t, '{ products(filter: { price: { gte: 1.999 } }) { id } }');
        assert.deepEqual(errorCodes(res), ['BAD_USER_INPUT']);
        assert.equal(res.body.errors[0].extensions.details[0].field, 'filter.price.gte');
      });
    });

    describe('writes (admin)', () => {
      it('creates, updates and deletes a product as REST does; deleting it again answers false', async () => {
        const created = await createProduct({ name: 'Echo', category: 'misc', price: 10, stock: 1, image: null });
        assert.equal(created.price, 10);
        assert.equal(created.image, null);
        const updated = await gql(t, UPDATE, {
          variables: { id: created.id, input: { price: 11.5, description: 'Bright' } },
          token: t.adminToken,
        });
        assert.equal(updated.body.errors, undefined, updated.text);
        assert.equal(updated.body.data.updateProduct.price, 11.5);
        assert.equal(updated.body.data.updateProduct.description, 'Bright');
        assert.equal(updated.body.data.updateProduct.name, 'Echo');
        assert.equal((await t.request('GET', `/api/v2/products/${created.id}`)).body.price, 11.5);
        const deleted = await gql(t, DELETE, { variables: { id: created.id }, token: t.adminToken });
        assert.deepEqual(deleted.body.data, { deleteProduct: true });
        const again = await gql(t, DELETE, { variables: { id: created.id }, token: t.adminToken });
        assert.deepEqual(again.body.data, { deleteProduct: false });
      });

      it('refuses a customer with FORBIDDEN and an anonymous caller with UNAUTHENTICATED, changing nothing', async () => {
        const product = await createProduct({ name: 'Foxtrot', category: 'misc', price: 2, stock: 1 });
        const user = await t.createUser();
        const input = { name: 'Nope', category: 'misc', price: 1, stock: 1 };
        assert.deepEqual(errorCodes(await gql(t, CREATE, { variables: { input }, token: user.token })), ['FORBIDDEN']);
        assert.deepEqual(errorCodes(await gql(t, CREATE, { variables: { input } })), ['UNAUTHENTICATED']);
        const update = await gql(t, UPDATE, { variables: { id: product.id, input: { price: 0 } }, token: user.token });
        assert.deepEqual(errorCodes(update), ['FORBIDDEN']);
        const remove = await gql(t, DELETE, { variables: { id: product.id }, token: user.token });
        assert.deepEqual(errorCodes(remove), ['FORBIDDEN']);
        const after = await t.request('GET', `/api/v2/products/${product.id}`);
        assert.equal(after.body.price, 2);
      });

      it('validates as REST: a third decimal or a blank name is BAD_USER_INPUT naming the field; an unknown id NOT_FOUND', async () => {
        const cents = await gql(t, CREATE, {
          variables: { input: { name: 'G', category: 'misc', price: 1.005, stock: 1 } },
          token: t.adminToken,
        });
        assert.deepEqual(errorCodes(cents), ['BAD_USER_INPUT']);
        assert.equal(cents.body.errors[0].extensions.details[0].field, 'price');
        const blank = await gql(t, UPDATE, { variables: { id: '1', input: { name: '  ' } }, token: t.adminToken });
        assert.deepEqual(errorCodes(blank), ['BAD_USER_INPUT']);
        const unknown = await gql(t, UPDATE, { variables: { id: '999999', input: { stock: 1 } }, token: t.adminToken });
        assert.deepEqual(errorCodes(unknown), ['NOT_FOUND']);
      });

      it('emits the same product.created event as REST', async () => {
        const start = await feedEnd(t);
        const input = { name: 'Golf', category: 'sport', price: 3.5, stock: 4, description: 'Ball' };
        const viaGraphql = await createProduct(input);
        const viaRest = await t.request('POST', '/api/v2/products', { token: t.adminToken, body: input });
        assert.equal(viaRest.status, 201);
        const events = (await eventsAfter(t, start, 2)).filter((event) => event.type === 'product.created');
        assert.equal(events.length, 2);
        const [fromGraphql, fromRest] = events.map(({ data }) => data);
        assert.equal(String(fromGraphql!.id), viaGraphql.id);
        const comparable = ({ id, createdAt, updatedAt, _links, ...rest }: Record<string, unknown>) => {
          assert.ok(id && createdAt && updatedAt && _links);
          return rest;
        };
        assert.deepEqual(comparable(fromGraphql!), comparable(fromRest!));
        assert.deepEqual(Object.keys(fromGraphql!).sort(), Object.keys(fromRest!).sort());
      });
    });
  });
}
