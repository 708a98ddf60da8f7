import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PNG_BYTES } from '../../../test/support/avatar-samples.ts';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { eventsAfter, feedEnd, type SeenEvent } from '../../../test/support/events.ts';
import { OpenApiResponseValidator } from '../../../test/support/openapi-validator.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';
import { EVENT_TYPES } from './event.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const WEBHOOK_HEADERS = ['webhook-id', 'webhook-timestamp', 'webhook-signature'];

/** The schema a `$ref` names, in the document's components. */
const resolved = (document: Json, schema: Json): Json =>
  schema.$ref ? document.components.schemas[schema.$ref.replace('#/components/schemas/', '')] : schema;

const bodySchemaOf = (document: Json, type: string): Json =>
  resolved(document, document.webhooks[type].post.requestBody.content['application/json'].schema);

/** The `$ref` of a REST operation's 200 body. */
const answerRef = (document: Json, path: string, method = 'get'): string =>
  document.paths[path][method].responses['200'].content['application/json'].schema.$ref;

for (const dialect of DIALECTS) {
  describe(`events in the OpenAPI documents' webhooks (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let v1: Json;
    let v2: Json;
    before(async () => {
      t = await startTestServer(dialect);
      v1 = (await t.request('GET', '/api/v1/openapi.json')).body;
      v2 = (await t.request('GET', '/api/v2/openapi.json')).body;
    });
    after(() => t?.close());

    it('lists exactly the event types of the catalogue, in every document served', async () => {
      const served = [v1, v2, (await t.request('GET', '/openapi.json')).body];
      for (const document of served) assert.deepEqual(Object.keys(document.webhooks), [...EVENT_TYPES]);
    });

    it('sends each type as a signed POST of the event envelope with that type and its own data', () => {
      for (const document of [v1, v2]) {
        for (const type of EVENT_TYPES) {
          const operation = document.webhooks[type].post;
          assert.deepEqual(
            operation.parameters.map((p: Json) => [p.name, p.in, p.required]),
            WEBHOOK_HEADERS.map((name) => [name, 'header', true]),
          );
          assert.deepEqual(Object.keys(operation.responses).sort(), ['2XX', '410', 'default']);
          assert.deepEqual(operation.security, []);
          const body = bodySchemaOf(document, type);
          assert.deepEqual(body.required, ['id', 'type', 'timestamp', 'data']);
          assert.equal(body.properties.type.const, type);
          assert.ok(body.properties.data.$ref, `${type}: data names a component`);
        }
      }
    });

    it('reuses the schemas the v2 routes answer with, by reference; deletions carry the ids only', () => {
      const dataRef = (type: string) => bodySchemaOf(v2, type).properties.data.$ref;
      assert.equal(dataRef('user.created'), answerRef(v2, '/users/{userId}'));
      assert.equal(dataRef('user.updated'), answerRef(v2, '/users/{userId}'));
      assert.equal(dataRef('post.created'), answerRef(v2, '/posts/{postId}'));
      assert.equal(dataRef('post.updated'), answerRef(v2, '/posts/{postId}'));
      assert.equal(dataRef('comment.created'), answerRef(v2, '/posts/{postId}/comments/{commentId}'));
      assert.equal(dataRef('like.created'), answerRef(v2, '/comments/{commentId}/likes/{userId}'));
      assert.equal(dataRef('product.created'), answerRef(v2, '/products/{productId}'));
      assert.equal(dataRef('product.updated'), answerRef(v2, '/products/{productId}'));
      for (const type of ['order.created', 'order.paid', 'order.cancelled', 'order.refunded'])
        assert.equal(dataRef(type), answerRef(v2, '/orders/{orderId}'));
      assert.equal(dataRef('report.completed'), answerRef(v2, '/reports/{reportId}'));
      const deleted = (type: string) => resolved(v2, { $ref: dataRef(type) });
      assert.deepEqual(deleted('user.deleted').required, ['id']);
      assert.deepEqual(deleted('product.deleted').required, ['id']);
      assert.deepEqual(deleted('comment.deleted').required, ['id', 'postId']);
      assert.deepEqual(deleted('like.deleted').required, ['commentId', 'userId']);
      // Events carry v2's product (createdAt) in v1's document too.
      assert.ok(resolved(v1, bodySchemaOf(v1, 'product.created').properties.data).properties.createdAt);
    });

    it('validates every event the feed shows against its webhook schema in the served document', async () => {
      const start = await feedEnd(t);
      const admin = { token: t.adminToken };
      const user = await t.createUser();
      /** Each change must succeed (201, 202, 204 or 200). */
      const ok = (answer: { status: number; text: string }) =>
        assert.ok(answer.status >= 200 && answer.status < 300, `${answer.status} ${answer.text}`);
      ok(await t.request('PATCH', `/api/users/${user.id}`, { ...admin, body: { name: 'Renamed' } }));
      ok(
        await t.request('PUT', `/api/users/${user.id}/avatar`, {
          ...admin,
          raw: PNG_BYTES,
          headers: { 'content-type': 'image/png' },
        }),
      );
      const post = await t.request('POST', `/api/users/${user.id}/posts`, {
        token: user.token,
        body: { title: 'T', content: 'C' },
      });
      ok(post);
      ok(await t.request('PATCH', `/api/posts/${post.body.id}`, { token: user.token, body: { title: 'T2' } }));
      const removed = await t.request('POST', `/api/users/${user.id}/posts`, {
        token: user.token,
        body: { title: 'Removed', content: 'C' },
      });
      ok(await t.request('DELETE', `/api/posts/${removed.body.id}`, { token: user.token }));
      const comment = await t.request('POST', `/api/posts/${post.body.id}/comments`, {
        token: user.token,
        body: { text: 'Hi' },
      });
      ok(comment);
      ok(await t.request('POST', `/api/comments/${comment.body.id}/likes`, { token: user.token }));
      ok(await t.request('DELETE', `/api/comments/${comment.body.id}/likes`, { token: user.token }));
      ok(await t.request('DELETE', `/api/posts/${post.body.id}/comments/${comment.body.id}`, admin));
      const product = { name: 'Lamp', category: 'home', price: 12.5, stock: 5 };
      const created = await t.request('POST', '/api/products', { ...admin, body: product });
      ok(created);
      ok(await t.request('PUT', `/api/products/${created.body.id}`, { ...admin, body: { ...product, price: 13 } }));
      const gone = await t.request('POST', '/api/products', { ...admin, body: { ...product, name: 'Gone' } });
      ok(await t.request('DELETE', `/api/products/${gone.body.id}`, admin));
      const order = { items: [{ productId: created.body.id, quantity: 1 }] };
      const first = await t.request('POST', '/api/orders', { token: user.token, body: order });
      ok(first);
      ok(await t.request('POST', `/api/orders/${first.body.id}/pay`, { token: user.token }));
      ok(await t.request('POST', `/api/orders/${first.body.id}/refund`, admin));
      const second = await t.request('POST', '/api/orders', { token: user.token, body: order });
      ok(await t.request('POST', `/api/orders/${second.body.id}/cancel`, { token: user.token }));
      ok(await t.request('POST', '/api/reports/generate', { ...admin, body: { type: 'users' } }));
      await t.server.app.services.reports.runNextJob('test-worker');
      const leaving = await t.createUser();
      ok(await t.request('DELETE', `/api/users/${leaving.id}`, admin));
      // The trash (DECISIONS §19): each kind deleted above comes back, then goes for good.
      for (const path of [
        `/api/posts/${post.body.id}/comments/${comment.body.id}`,
        `/api/posts/${removed.body.id}`,
        `/api/products/${gone.body.id}`,
        `/api/users/${leaving.id}`,
      ]) {
        const restorePath = path.includes('/comments/') ? `/api/comments/${comment.body.id}` : path;
        ok(await t.request('POST', `${restorePath}/restore`, admin));
        ok(await t.request('DELETE', `${path}?permanent=true`, admin));
      }
      // Erase (DECISIONS §19, v2): user.created, then user.erased.
      const forgotten = await t.createUser();
      ok(await t.request('POST', `/api/v2/users/${forgotten.id}/erase`, admin));

      // user.created ×2, user.updated ×2 (PATCH, avatar), post.created ×2, product.created ×2, order.created ×2,
      // one of each other type; then per trashed kind *.restored, *.deleted and *.purged; an erased user's two.
      const events = await eventsAfter(t, start, 37);
      assert.equal(events.length, 37);
      assert.deepEqual([...new Set(events.map((event) => event.type))].sort(), [...EVENT_TYPES].sort());
      for (const document of [v2, v1]) {
        const validator = new OpenApiResponseValidator(
          document as ConstructorParameters<typeof OpenApiResponseValidator>[0],
        );
        for (const event of events) assert.deepEqual(validator.validateWebhook(event.type, event), [], event.type);
        // Not vacuous: an event is refused by another type's schema, and a payload missing a field by its own.
        const productCreated = events.find((event) => event.type === 'product.created')!;
        assert.notDeepEqual(validator.validateWebhook('product.deleted', productCreated), []);
        const orderPaid = events.find((event) => event.type === 'order.paid')!;
        const withoutStatus = { ...orderPaid.data };
        delete withoutStatus.status;
        assert.notDeepEqual(
          validator.validateWebhook('order.paid', { ...orderPaid, data: withoutStatus } as SeenEvent),
          [],
        );
      }
    });
  });
}
