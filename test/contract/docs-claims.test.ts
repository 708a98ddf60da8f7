import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { DATABASE_INDEPENDENT } from '../support/dialects.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * Issue 75: statements of the docs that no example runs, held against the server: what v2 does with an
 * undeclared query parameter (DECISIONS §13), that GraphQL has a products list, and how v2 differs from v1,
 * in docs/QUERYING.md, docs/REST.md and both OpenAPI documents' descriptions.
 */
const ROOT = new URL('../../', import.meta.url);
const page = (name: string) => readFileSync(new URL(name, ROOT), 'utf8').replace(/\s+/g, ' ');

for (const dialect of DATABASE_INDEPENDENT) {
  describe(`what the docs claim, against the server (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(dialect);
    });
    after(() => t?.close());

    it('an undeclared query parameter: 422 naming it in v2, dropped in v1, as QUERYING, REST and the documents say', async () => {
      const v2 = await t.request('GET', '/api/v2/products?colour=red');
      assert.equal(v2.status, 422);
      assert.deepEqual(
        v2.body.error.details.map((detail: { field: string }) => detail.field),
        ['colour'],
      );
      assert.equal((await t.request('GET', '/api/v1/products?colour=red')).status, 200);
      const querying = page('docs/QUERYING.md');
      assert.match(querying, /in v2, a plain parameter the list does not declare \(`\?colour=red`: 422/);
      assert.match(querying, /v1 drops it/);
      assert.doesNotMatch(querying, /`\?colour=red`\) is ignored/);
      assert.match(
        page('docs/REST.md'),
        /does not declare \(`\?colour=red`\) is 422 `VALIDATION_ERROR` naming it, where v1 drops it/,
      );
      for (const version of [1, 2]) {
        const document = await t.request('GET', `/api/v${version}/openapi.json`);
        const description = String(document.body.info.description).replace(/\s+/g, ' ');
        assert.match(description, /v2 differs from v1 in two ways/);
        assert.match(description, /does not declare is 422 `VALIDATION_ERROR`/);
        assert.doesNotMatch(description, /only in products/);
      }
      assert.doesNotMatch(page('docs/REST.md'), /one breaking way/);
    });

    it('GraphQL has a products list with the REST list filters, as QUERYING says', async () => {
      const answer = await t.request('POST', '/graphql', {
        body: { query: '{ products(filter: { price: { lt: 1000 } }, limit: 2) { id name } }' },
      });
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.body.errors, undefined, answer.text);
      assert.ok(Array.isArray(answer.body.data.products));
      const querying = page('docs/QUERYING.md');
      assert.doesNotMatch(querying, /Products have no GraphQL list/);
      assert.match(querying, /`products` takes the products list's filters/);
    });
  });
}

describe('the README', () => {
  it('has at most 150 words before its first command, and the newcomer path before operations and internals', () => {
    const readme = readFileSync(new URL('README.md', ROOT), 'utf8');
    const beforeCommand = readme.slice(0, readme.indexOf('```sh')).replace(/<!--[\s\S]*?-->/g, '');
    const words = beforeCommand.split(/\s+/).filter(Boolean).length;
    assert.ok(words <= 150, `${words} words before the first command`);
    const headings = [...readme.matchAll(/^#{2,3} (.+)$/gm)].map((match) => match[1]!);
    const at = (title: string) => {
      const index = headings.indexOf(title);
      assert.ok(index >= 0, `a section "${title}" in ${headings.join(' | ')}`);
      return index;
    };
    const path = [
      'Start it',
      'A first REST request',
      'A first GraphQL query',
      'The reference and GraphiQL',
      'On PostgreSQL',
      'The worker',
    ];
    const indexes = path.map(at);
    assert.deepEqual(
      [...indexes].sort((a, b) => a - b),
      indexes,
      'the newcomer path in order',
    );
    for (const later of ['Command line', 'Tests', 'Documentation']) assert.ok(at(later) > indexes.at(-1)!, later);
  });
});
