import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Client } from 'openapi-fetch';
import { generateOpenApiTypes, OPENAPI_TYPES_FILE } from '../../scripts/openapi-types.ts';
import { PNG_BYTES } from '../support/avatar-samples.ts';
import { DIALECTS } from '../support/dialects.ts';
import { checkedClient } from './checked-client.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import type { components, paths, webhooks } from './api-v2.generated.ts';

/**
 * A client generated from the published v2 document (openapi-typescript types, compiled by
 * `tsc --strict` in `npm test`; calls through openapi-fetch) makes real calls; every response is
 * also checked against the document, as `request()` does.
 */
describe('REST v2 types generated from the OpenAPI document', () => {
  it('match the document the server publishes (else run npm run openapi:types and commit the file)', async () => {
    assert.equal(readFileSync(OPENAPI_TYPES_FILE, 'utf8'), await generateOpenApiTypes());
  });
});

type User = components['schemas']['User'];
type Order = components['schemas']['Order'];
/** What a webhook endpoint receives for one event type, typed from the document's `webhooks`. */
type Delivered<T extends keyof webhooks> = webhooks[T]['post']['requestBody']['content']['application/json'];

for (const dialect of DIALECTS) {
  describe(`a typed client generated from the v2 document (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let client: Client<paths>;
    before(async () => {
      t = await startTestServer(dialect);
      client = checkedClient(t);
    });
    after(() => t?.close());

    const auth = (token: string) => ({ authorization: `Bearer ${token}` });

    it('signs up, gets a token, and reads a named User', async () => {
      const email = `typed-${Date.now()}@example.com`;
      const created = await client.POST('/users', { body: { name: 'Typed', email, password: 'typed-password' } });
      assert.equal(created.response.status, 201);
      const user: User | undefined = created.data;
      assert.equal(user?.email, email);
      const token = await client.POST('/auth/token', { body: { email, password: 'typed-password' } });
      assert.equal(token.data?.token_type, 'Bearer');
      const read = await client.GET('/users/{userId}', {
        params: { path: { userId: user!.id } },
        headers: auth(token.data!.access_token),
      });
      assert.equal(read.data?._links.self.href, `/api/v2/users/${user!.id}`);
    });

    it('likes a comment without a body', async () => {
      const { id, token } = await t.createUser();
      const post = await client.POST('/users/{userId}/posts', {
        params: { path: { userId: id } },
        body: { title: 'Typed', content: 'A post from the typed client' },
        headers: auth(token),
      });
      const comment = await client.POST('/posts/{postId}/comments', {
        params: { path: { postId: post.data!.id } },
        body: { text: 'Nice' },
        headers: auth(token),
      });
      const like = await client.POST('/comments/{commentId}/likes', {
        params: { path: { commentId: comment.data!.id } },
        headers: auth(token),
      });
      assert.equal(like.response.status, 201);
      assert.equal(like.data?.userId, id);
    });

    it('uploads an avatar and reads it back as an image', async () => {
      const { id, token } = await t.createUser();
      const upload = await client.PUT('/users/{userId}/avatar', {
        params: { path: { userId: id } },
        // The bytes go as they are: the document's binary body is a string to the generated types.
        body: PNG_BYTES as unknown as string,
        bodySerializer: (body) => body as unknown as Uint8Array,
        headers: { ...auth(token), 'content-type': 'image/png' },
      });
      assert.equal(upload.response.status, 201);
      assert.equal(upload.data?.contentType, 'image/png');
      const image = await client.GET('/users/{userId}/avatar', {
        params: { path: { userId: id } },
        headers: auth(token),
        parseAs: 'arrayBuffer',
      });
      assert.equal(image.response.headers.get('content-type'), 'image/png');
      assert.deepEqual(Buffer.from(image.data as unknown as ArrayBuffer), PNG_BYTES);
    });

    it('places an order once under an Idempotency-Key', async () => {
      const product = await client.POST('/products', {
        body: { name: 'Typed lamp', category: 'lighting', price: 12.5, stock: 3 },
        headers: auth(t.adminToken),
      });
      const { token } = await t.createUser();
      const place = () =>
        client.POST('/orders', {
          params: { header: { 'idempotency-key': 'typed-client-order-1' } },
          body: { items: [{ productId: product.data!.id, quantity: 2 }] },
          headers: auth(token),
        });
      const first = await place();
      const again = await place();
      assert.equal(first.response.status, 201);
      const order: Order | undefined = again.data;
      assert.equal(order?.id, first.data?.id);
      assert.equal(order?.status, 'pending');
      const stock = await client.GET('/products/{productId}', { params: { path: { productId: product.data!.id } } });
      assert.equal(stock.data?.stock, 1);
    });

    it("types a webhook receiver from the document's webhooks (an event read from the feed)", async () => {
      const product = await client.POST('/products', {
        body: { name: 'Typed shade', category: 'lighting', price: 3, stock: 1 },
        headers: auth(t.adminToken),
      });
      // On PostgreSQL an event shows in the feed a moment after its commit (docs/EVENTS.md): read until it does.
      const deadline = Date.now() + 10_000;
      let event;
      while (!event && Date.now() < deadline) {
        const feed = await client.GET('/events', {
          params: { query: { types: 'product.created', limit: 1000 } },
          headers: auth(t.adminToken),
        });
        event = feed.data!.data.find((item) => item.data.id === product.data!.id);
        if (!event) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      // The feed's item has an open `data`; a receiver of `product.created` gets the v2 Product.
      const received = event as Delivered<'product.created'>;
      assert.equal(received.type, 'product.created');
      const createdAt: string = received.data.createdAt;
      assert.equal(createdAt, product.data!.createdAt);
      assert.equal(received.data._links.self.href, `/api/v2/products/${product.data!.id}`);
    });
  });
}
