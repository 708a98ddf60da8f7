import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../support/dialects.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * Issue 75: what `/docs` pre-fills in "Test Request" works on the demo data. Each example value a parameter
 * of either OpenAPI document carries is sent, alone, to its operation on a fresh database with the demo
 * data, as the administrator (who may read everything), with path ids naming demo rows: the answer is a 2xx,
 * and a list has items. Streams are left out (they never end); the event feed is empty on a fresh database
 * (the demo data is written without events) and is only checked to accept its example.
 */

/** Demo rows a path parameter names: Alice (2), her post 1 with its comment 1, which she liked, order 1. */
const DEMO_IDS: Record<string, string> = { userId: '2', postId: '1', commentId: '1', orderId: '1' };
const EMPTY_ON_DEMO_DATA = new Set(['GET /events']);
const STREAMS = new Set(['GET /events/stream']);

interface Parameter {
  name: string;
  in: string;
  example?: unknown;
  schema?: { examples?: unknown[]; example?: unknown };
}
type Document = { paths: Record<string, Record<string, { parameters?: Parameter[] }>> };

function examplesOf(parameter: Parameter): unknown[] {
  if (parameter.example !== undefined) return [parameter.example];
  return parameter.schema?.examples ?? (parameter.schema?.example !== undefined ? [parameter.schema.example] : []);
}

for (const dialect of DIALECTS) {
  describe(`the reference's examples on the demo data (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(dialect, { DEMO_DATA: 'true' });
    });
    after(() => t?.close());

    for (const version of [1, 2] as const) {
      it(`every parameter example of the v${version} document answers 2xx, and a list answers items`, async () => {
        const document = (await t.request('GET', `/api/v${version}/openapi.json`)).body as Document;
        let tried = 0;
        for (const [template, item] of Object.entries(document.paths)) {
          for (const [method, operation] of Object.entries(item)) {
            const name = `${method.toUpperCase()} ${template}`;
            // Reads only: a write's query examples (a write by filter's, an import's) need a body and would change the demo data.
            if (method !== 'get' || STREAMS.has(name) || !operation.parameters) continue;
            const path = template.replace(/\{(\w+)\}/g, (_, param: string) => DEMO_IDS[param] ?? '1');
            for (const parameter of operation.parameters) {
              if (parameter.in !== 'query') continue;
              for (const example of examplesOf(parameter)) {
                const url = `/api/v${version}${path}?${new URLSearchParams({ [parameter.name]: String(example) })}`;
                const res = await t.request(method.toUpperCase(), url, { token: t.adminToken });
                const where = `${name} ${parameter.name}=${String(example)}: ${res.status} ${res.text.slice(0, 200)}`;
                assert.ok(res.status >= 200 && res.status < 300, where);
                if (Array.isArray(res.body?.data) && !EMPTY_ON_DEMO_DATA.has(name)) {
                  assert.ok(res.body.data.length > 0, `an empty list: ${where}`);
                }
                tried += 1;
              }
            }
          }
        }
        assert.ok(tried >= 15, `${tried} examples tried`);
      });

      it(`offers no API-Version request header in the v${version} document: its paths are versioned, where the header decides nothing`, async () => {
        const document = (await t.request('GET', `/api/v${version}/openapi.json`)).body as Document & {
          components: { parameters?: Record<string, Parameter> };
        };
        const declared = Object.values(document.paths)
          .flatMap((item) => Object.values(item))
          .flatMap((operation) => operation.parameters ?? [])
          .map((parameter) => JSON.stringify(parameter))
          .filter((text) => /API-Version|ApiVersion/i.test(text));
        assert.deepEqual(declared, []);
        assert.equal(document.components.parameters?.ApiVersion, undefined);
      });
    }
  });
}
