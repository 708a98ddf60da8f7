import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { dialectNamed } from '../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../test/support/test-server.ts';
import { gql, GRAPHQL_TEST_ENV } from '../../test/support/graphql-test-client.ts';

const dialect = dialectNamed('sqlite');
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;
const heapUsedMB = () => {
  collect();
  return process.memoryUsage().heapUsed / 2 ** 20;
};

describe('GraphQL parse caches are bounded in bytes, not entries', { skip: dialect.skip }, () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer(dialect, GRAPHQL_TEST_ENV);
  });
  after(() => t?.close());

  it('holds well under 160 MB after 60 distinct ~50 KB documents (unbounded, Mercurius kept ~4.6 MB of each: 276 MB)', async () => {
    const before = heapUsedMB();
    // Each ~4,000 tokens, unknown fields: refused by validation, and kept by Mercurius with its errors.
    for (let n = 0; n < 60; n += 1) {
      const fields = Array.from({ length: 4000 }, (_, k) => `f${n}_${k}`).join(' ');
      const answer = await gql(t, `{ users { ${fields} } }`, { token: t.adminToken });
      assert.equal(answer.body.errors?.[0]?.extensions?.code, 'GRAPHQL_VALIDATION_FAILED', answer.text);
    }
    const grown = heapUsedMB() - before;
    assert.ok(grown < 160, `the heap grew by ${grown.toFixed(0)} MB`);
    const answer = await gql(t, '{ users(limit: 1) { id } }', { token: t.adminToken });
    assert.equal(answer.status, 200);
    assert.equal(answer.body.errors, undefined, answer.text);
  });
});
