import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { servedRoutes } from '../../../test/support/served-routes.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const METHODS = ['get', 'put', 'post', 'patch', 'delete'];

/** `GET /api/v2/users/:userId` for every versioned REST route the app serves (HEAD/OPTIONS aside). */
function servedOperations(t: TestServer, version: number): string[] {
  const prefix = `/api/v${version}/`;
  // Fastify's own route tree is the truth the document must cover.
  return servedRoutes(t.server.app.http)
    .map((route) => route.split(' ') as [string, string])
    .filter(([, url]) => url.startsWith(prefix) && !url.endsWith('/openapi.json'))
    .map(([method, url]) => `${method} ${url.slice(prefix.length - 1).replace(/:(\w+)/g, '{$1}')}`)
    .sort();
}

function documentedOperations(document: Json): string[] {
  return Object.entries(document.paths as Json)
    .flatMap(([path, item]) =>
      METHODS.filter((method) => item[method]).map((method) => `${method.toUpperCase()} ${path}`),
    )
    .sort();
}

for (const dialect of DIALECTS) {
  describe(`OpenAPI documents (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let v1: Json;
    let v2: Json;
    before(async () => {
      t = await startTestServer(dialect);
      v1 = (await t.request('GET', '/api/v1/openapi.json')).body;
      v2 = (await t.request('GET', '/api/v2/openapi.json')).body;
    });
    after(() => t?.close());

    it('serves an OpenAPI 3.1 document per version, each relative to its base path', () => {
      for (const [document, version] of [
        [v1, 1],
        [v2, 2],
      ] as const) {
        assert.equal(document.openapi, '3.1.0');
        assert.equal(document.info.version, `${version}.0.0`);
        assert.deepEqual(
          document.servers.map((server: Json) => server.url),
          [`/api/v${version}`],
        );
      }
    });

    it('documents exactly the operations the app serves under each version prefix', () => {
      assert.deepEqual(documentedOperations(v1), servedOperations(t, 1));
      assert.deepEqual(documentedOperations(v2), servedOperations(t, 2));
      assert.ok(documentedOperations(v2).includes('GET /users/{userId}'));
      // A v2-only operation (`config.openapi.versions: [2]`) is in v2's route table and document, not in v1's.
      for (const operation of ['POST /imports', 'POST /products/batch', 'PATCH /products']) {
        assert.ok(documentedOperations(v2).includes(operation), operation);
        assert.ok(!servedOperations(t, 1).includes(operation), operation);
      }
    });

    it('picks the document like any REST call: /openapi.json is v1, ?version=2 and API-Version pick v2', async () => {
      assert.equal((await t.request('GET', '/openapi.json')).body.info.version, '1.0.0');
      assert.equal((await t.request('GET', '/openapi.json?version=2')).body.info.version, '2.0.0');
      const negotiated = await t.request('GET', '/api/openapi.json', { headers: { 'API-Version': '2' } });
      assert.equal(negotiated.body.info.version, '2.0.0');
      assert.equal(negotiated.headers.get('api-version'), '2');
      const deprecated = await t.request('GET', '/api/v1/openapi.json');
      assert.equal(deprecated.headers.get('deprecation'), 'true');
      assert.equal((await t.request('GET', '/openapi.json?version=9')).status, 400);
    });

    it('needs no token for the documents and the docs page', async () => {
      for (const path of ['/openapi.json', '/api/v2/openapi.json', '/docs/', '/docs/js/scalar.js']) {
        assert.equal((await t.request('GET', path)).status, 200, path);
      }
    });

    it('applies the bearer scheme to every operation whose access is not public', () => {
      assert.deepEqual(v2.components.securitySchemes.bearerAuth, {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description: 'A token from `POST /api/v2/auth/token`',
      });
      assert.deepEqual(v2.paths['/users/{userId}'].get.security, [{ bearerAuth: [] }]);
      assert.deepEqual(v2.paths['/users'].post.security, []);
      assert.deepEqual(v2.paths['/products'].get.security, []);
      assert.deepEqual(v2.paths['/products'].post.security, [{ bearerAuth: [] }]);
      assert.ok(v2.paths['/users/{userId}'].get.responses['401']);
      // A public operation needs no token, but one that is sent must be valid: 401 is listed there too.
      assert.match(v2.paths['/products'].get.responses['401'].description, /this operation needs none/);
    });

    it('documents the error envelope as a component, referenced by every error response', () => {
      assert.deepEqual(Object.keys(v2.components.schemas.ErrorEnvelope.properties), ['error']);
      for (const item of Object.values(v2.paths as Json)) {
        for (const method of METHODS.filter((m) => item[m])) {
          const responses = item[method].responses as Json;
          for (const status of ['400', '429', '500']) assert.ok(responses[status], `${method} ${status}`);
          for (const [status, response] of Object.entries(responses)) {
            if (Number(status) >= 400)
              assert.equal(response.content['application/json'].schema.$ref, '#/components/schemas/ErrorEnvelope');
          }
        }
      }
      const create = v2.paths['/users'].post.responses;
      assert.ok(create['422'] && create['413'] && create['415']);
      assert.ok(v2.paths['/users/{userId}'].get.responses['404']);
    });

    it('shows each version its own product shape: created_at in v1, createdAt in v2', () => {
      const shape = (document: Json) => {
        const ref: string =
          document.paths['/products/{productId}'].get.responses['200'].content['application/json'].schema.$ref;
        assert.equal(ref, '#/components/schemas/Product');
        return document.components.schemas.Product;
      };
      assert.ok(shape(v1).properties.created_at);
      assert.equal(shape(v1).properties.createdAt, undefined);
      assert.ok(shape(v2).properties.createdAt);
      assert.equal(shape(v2).properties.created_at, undefined);
      assert.ok(shape(v2).required.includes('createdAt'));
      assert.doesNotMatch(JSON.stringify(v2), /x-api-version/);
    });

    it('declares the version headers, and the deprecation headers on v1 only', () => {
      const headers = (document: Json) => document.paths['/users/{userId}'].get.responses['200'].headers;
      assert.deepEqual(Object.keys(headers(v2)).sort(), ['API-Version', 'Cache-Control', 'ETag']);
      assert.deepEqual(Object.keys(headers(v1)).sort(), [
        'API-Version',
        'Cache-Control',
        'Deprecation',
        'ETag',
        'Link',
        'Sunset',
      ]);
      assert.match(v1.info.description, /Deprecated/);
      assert.doesNotMatch(v2.info.description, /Deprecated/);
    });

    it('places the webhooks the app gives in every document: titled schemas as components, each body with an example', () => {
      for (const document of [v1, v2]) {
        const webhooks = Object.entries(document.webhooks as Json);
        assert.ok(webhooks.length > 0);
        for (const [name, item] of webhooks) {
          const body = item.post.requestBody.content['application/json'];
          assert.match(body.schema.$ref, /^#\/components\/schemas\//, name);
          assert.ok(body.example !== undefined, name);
        }
        // Every reference of the webhooks names a component of the same document.
        const refs = JSON.stringify(document.webhooks).match(/"\$ref":"[^"]+"/g) ?? [];
        for (const ref of new Set(refs)) {
          const [, section, component] = /#\/components\/(\w+)\/([^"]+)"$/.exec(ref) ?? [];
          assert.ok(document.components[section!]?.[component!], ref);
        }
        assert.doesNotMatch(JSON.stringify(document.webhooks), /x-api-version/);
      }
    });

    it('carries examples for request and response bodies', () => {
      let bodies = 0;
      for (const item of Object.values(v2.paths as Json)) {
        for (const method of METHODS.filter((m) => item[m])) {
          const operation = item[method];
          const media = [
            operation.requestBody?.content?.['application/json'],
            ...Object.values(operation.responses as Json).map((r) => r.content?.['application/json']),
          ];
          for (const entry of media.filter(Boolean)) {
            bodies += 1;
            assert.ok(
              entry.example !== undefined || entry.examples !== undefined,
              `${method} ${JSON.stringify(Object.keys(entry))}`,
            );
          }
        }
      }
      assert.ok(bodies > 50);
    });
  });
}
