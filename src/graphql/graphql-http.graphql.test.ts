import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { serverAudits } from 'graphql-http';
import { DIALECTS } from '../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../test/support/test-server.ts';
import { errorCodes, gql, gqlGet, GRAPHQL_TEST_ENV } from '../../test/support/graphql-test-client.ts';

const GRAPHQL_RESPONSE = 'application/graphql-response+json';

for (const dialect of DIALECTS) {
  describe(`GraphQL over HTTP (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(dialect, GRAPHQL_TEST_ENV);
    });
    after(() => t?.close());

    it('passes every audit of the graphql-http suite (MUST, SHOULD and MAY) against the live server', async () => {
      const audits = serverAudits({ url: `${t.url}/graphql` });
      // graphql-http 1.23 has 61 audits (issue 35: the audit stays 61/61); a version with fewer would hide a gap.
      assert.ok(audits.length >= 61, `only ${audits.length} audits`);
      const failures: string[] = [];
      for (const audit of audits) {
        const result = await audit.fn();
        if (result.status !== 'ok') failures.push(`${audit.id} ${audit.name}: ${result.reason}`);
      }
      assert.deepEqual(failures, []);
    });

    it('answers an anonymous { __typename } with 200 and application/json by default', async () => {
      const res = await gql(t, '{ __typename }');
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
      assert.deepEqual(res.body, { data: { __typename: 'Query' } });
    });

    it('answers in application/graphql-response+json when the client asks for it', async () => {
      const res = await gql(t, '{ __typename }', { accept: `${GRAPHQL_RESPONSE}, application/json;q=0.9` });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), `${GRAPHQL_RESPONSE}; charset=utf-8`);
      assert.deepEqual(res.body, { data: { __typename: 'Query' } });
    });

    it('prefers application/json when Accept ranks it higher, and refuses an Accept it cannot meet with 406', async () => {
      const json = await gql(t, '{ __typename }', { accept: `${GRAPHQL_RESPONSE};q=0.5, application/json` });
      assert.equal(json.headers.get('content-type'), 'application/json; charset=utf-8');
      const refused = await gql(t, '{ __typename }', { accept: 'text/html' });
      assert.equal(refused.status, 406);
      assert.deepEqual(errorCodes(refused), ['NOT_ACCEPTABLE']);
    });

    it('answers 200 with errors and no data to a parse failure under application/json, 400 under the GraphQL media type', async () => {
      const json = await gql(t, '{ users { id ');
      assert.equal(json.status, 200);
      assert.equal(json.body.data, undefined);
      assert.deepEqual(errorCodes(json), ['GRAPHQL_PARSE_FAILED']);
      assert.deepEqual(json.body.errors[0].locations, [{ line: 1, column: 14 }]);
      const strict = await gql(t, '{ users { id ', { accept: GRAPHQL_RESPONSE });
      assert.equal(strict.status, 400);
      assert.deepEqual(errorCodes(strict), ['GRAPHQL_PARSE_FAILED']);
    });

    it('answers a validation failure with GRAPHQL_VALIDATION_FAILED and its location (200, or 400 under the GraphQL media type)', async () => {
      const json = await gql(t, '{ users { nickname } }');
      assert.equal(json.status, 200);
      assert.deepEqual(errorCodes(json), ['GRAPHQL_VALIDATION_FAILED']);
      assert.match(json.body.errors[0].message, /nickname/);
      assert.deepEqual(json.body.errors[0].locations, [{ line: 1, column: 11 }]);
      const strict = await gql(t, '{ users { nickname } }', { accept: GRAPHQL_RESPONSE });
      assert.equal(strict.status, 400);
    });

    it('answers variables of the wrong type with BAD_USER_INPUT before running anything', async () => {
      const query = 'query One($id: ID!) { user(id: $id) { id } }';
      for (let run = 0; run < 3; run += 1) {
        // The third run executes a compiled (graphql-jit) operation: same answer.
        const res = await gql(t, query, { variables: { id: { nested: true } } });
        assert.equal(res.status, 200);
        assert.deepEqual(errorCodes(res), ['BAD_USER_INPUT'], res.text);
        assert.equal(res.body.data, undefined);
      }
      const missing = await gql(t, query, { accept: GRAPHQL_RESPONSE });
      assert.equal(missing.status, 400);
      assert.deepEqual(errorCodes(missing), ['BAD_USER_INPUT']);
    });

    it('serves queries over GET, with variables and operationName in the query string', async () => {
      const { token, id } = await t.createUser({ name: 'Getter' });
      const res = await t.request(
        'GET',
        `/graphql?${new URLSearchParams({
          query: 'query A { __typename } query B($id: ID!) { user(id: $id) { name } }',
          variables: JSON.stringify({ id: String(id) }),
          operationName: 'B',
        })}`,
        { token },
      );
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { data: { user: { name: 'Getter' } } });
      assert.equal(res.headers.get('vary'), 'Authorization, Accept');
      assert.ok(res.headers.get('etag'));
    });

    it('refuses mutations over GET with 405 and Allow: POST, and runs nothing', async () => {
      const before = await gql(t, '{ users(limit: 100) { id } }', { token: t.adminToken });
      const res = await gqlGet(t, {
        query: 'mutation { createUser(input: {name: "Nope", email: "nope@example.com"}) { id } }',
      });
      assert.equal(res.status, 405);
      assert.equal(res.headers.get('allow'), 'POST');
      assert.deepEqual(errorCodes(res), ['METHOD_NOT_ALLOWED']);
      const afterwards = await gql(t, '{ users(limit: 100) { id } }', { token: t.adminToken });
      assert.equal(afterwards.body.data.users.length, before.body.data.users.length);
    });

    it('answers a GET naming an unknown operation, or without a needed operationName, as a request error', async () => {
      const unknown = await gqlGet(t, { query: '{ __typename }', operationName: 'Missing' });
      assert.equal(unknown.status, 200);
      assert.deepEqual(errorCodes(unknown), ['GRAPHQL_VALIDATION_FAILED']);
      const ambiguous = await gqlGet(
        t,
        { query: 'query A { __typename } query B { __typename }' },
        { accept: GRAPHQL_RESPONSE },
      );
      assert.equal(ambiguous.status, 400);
      const posted = await gql(t, 'query A { __typename } query B { __typename }');
      assert.deepEqual(errorCodes(posted), ['GRAPHQL_VALIDATION_FAILED']);
    });

    it('answers 400 BAD_REQUEST to invalid JSON, a missing query, non-object variables and bad GET variables', async () => {
      const badJson = await t.request('POST', '/graphql', {
        raw: '{"query": ',
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(badJson.status, 400);
      assert.deepEqual(errorCodes(badJson), ['BAD_REQUEST']);
      const noQuery = await t.request('POST', '/graphql', { body: { variables: {} } });
      assert.equal(noQuery.status, 400);
      assert.deepEqual(errorCodes(noQuery), ['BAD_REQUEST']);
      const noBody = await t.request('POST', '/graphql', { headers: { 'content-type': 'application/json' } });
      assert.equal(noBody.status, 400);
      const listVariables = await t.request('POST', '/graphql', { body: { query: '{ __typename }', variables: [1] } });
      assert.equal(listVariables.status, 400);
      const badGetVariables = await gqlGet(t, { query: '{ __typename }', variables: '{nope' });
      assert.equal(badGetVariables.status, 400);
      assert.deepEqual(errorCodes(badGetVariables), ['BAD_REQUEST']);
    });

    it('accepts null variables, operationName and extensions, and ignores a map of extensions', async () => {
      const res = await t.request('POST', '/graphql', {
        body: { query: '{ __typename }', variables: null, operationName: null, extensions: null },
      });
      assert.equal(res.status, 200);
      const ext = await t.request('POST', '/graphql', {
        body: { query: '{ __typename }', extensions: { tracing: true } },
      });
      assert.equal(ext.status, 200);
    });

    it('answers 415 to a body that is not JSON', async () => {
      const res = await t.request('POST', '/graphql', {
        raw: 'query { __typename }',
        headers: { 'content-type': 'application/graphql' },
      });
      assert.equal(res.status, 415);
      assert.deepEqual(errorCodes(res), ['UNSUPPORTED_MEDIA_TYPE']);
    });

    it('answers 413 PAYLOAD_TOO_LARGE to a body over 1 MiB', async () => {
      const query = `{ __typename }${' '.repeat(1024 * 1024)}`;
      const res = await t.request('POST', '/graphql', { body: { query } });
      assert.equal(res.status, 413);
      assert.deepEqual(errorCodes(res), ['PAYLOAD_TOO_LARGE']);
    });

    it('answers 401 UNAUTHENTICATED with a Bearer challenge to an invalid token', async () => {
      const res = await gql(t, '{ __typename }', { token: 'not-a-jwt' });
      assert.equal(res.status, 401);
      assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer /);
      assert.deepEqual(errorCodes(res), ['UNAUTHENTICATED']);
    });

    it('answers other methods with 405 and Allow', async () => {
      const res = await t.request('PUT', '/graphql', { body: { query: '{ __typename }' } });
      assert.equal(res.status, 405);
      assert.match(res.headers.get('allow') ?? '', /POST/);
    });
  });
}
