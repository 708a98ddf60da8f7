import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { gql, GRAPHQL_TEST_ENV } from '../../../test/support/graphql-test-client.ts';
import { subscribeWs, within, wsClient, type LiveResult } from '../../../test/support/live-clients.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

/**
 * DECISIONS §11: "Queries and mutations over WebSocket follow the same rules as over HTTP". Each operation
 * below is sent by one user over HTTP (POST /graphql) and over a socket (graphql-ws client): the data, and the
 * code and guard of every error, must be the same (a refusal before execution is the protocol's `error`
 * message on a socket, a 200 with `errors` and no `data` over HTTP).
 */

interface Outcome {
  data: unknown;
  errors: { code: unknown; guard: unknown }[];
}

type ErrorLike = { extensions?: { code?: unknown; guard?: unknown } };
const errorsOf = (errors: ErrorLike[] | undefined) =>
  (errors ?? []).map((e) => ({ code: e.extensions?.code, guard: e.extensions?.guard }));

for (const dialect of DIALECTS) {
  describe(
    `GraphQL queries and mutations over WebSocket answer as over HTTP (${dialect.name})`,
    { skip: dialect.skip },
    () => {
      let t: TestServer;
      before(async () => {
        t = await startTestServer(dialect, GRAPHQL_TEST_ENV);
      });
      after(() => t?.close());

      it('gives the same data and the same errors (rights, e-mail privacy, guards, parse and variable errors) over both', async () => {
        const me = await t.createUser({ name: 'Me' });
        const other = await t.createUser({ name: 'Other' });
        const operations: [string, string, Record<string, unknown>?][] = [
          ['my own e-mail', `{ user(id: "${me.id}") { name email } }`],
          ["another user's e-mail", `{ user(id: "${other.id}") { name email } }`],
          ['a list', '{ users(limit: 3) { id email } }'],
          ['a mutation of my own', `mutation { updateUser(id: "${me.id}", input: { name: "Me" }) { name email } }`],
          ["a mutation of another's", `mutation { updateUser(id: "${other.id}", input: { name: "x" }) { id } }`],
          [
            'too deep',
            '{ users { posts { comments { post { author { posts { comments { post { author { posts { id } } } } } } } } } } }',
          ],
          ['too costly', '{ users(limit: 100) { posts(limit: 100) { comments(limit: 100) { author { name } } } } }'],
          ['not valid', '{ nothing }'],
          ['not parsed', '{ user('],
          ['a bad variable', 'query Q($id: ID!) { user(id: $id) { name } }', { id: {} }],
        ];
        const client = wsClient(t, me.token);
        try {
          for (const [what, query, variables] of operations) {
            const res = await gql(t, query, { token: me.token, variables });
            assert.equal(res.status, 200, `${what} over HTTP: ${res.text}`);
            const body = res.body as { data?: unknown; errors?: ErrorLike[] };
            const overHttp: Outcome = { data: body.data, errors: errorsOf(body.errors) };
            const live = subscribeWs(client, query, variables);
            const ended = await within(live.ended, `the answer to ${what}`);
            const overWs: Outcome = Array.isArray(ended)
              ? { data: undefined, errors: errorsOf(ended as ErrorLike[]) }
              : {
                  data: live.results[0]?.data,
                  errors: errorsOf((live.results[0] as LiveResult | undefined)?.errors as ErrorLike[] | undefined),
                };
            assert.deepEqual(overWs, overHttp, what);
            assert.ok(overHttp.data !== undefined || overHttp.errors.length > 0, what);
          }
        } finally {
          await client.dispose();
        }
      });
    },
  );
}
