import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DATABASE_INDEPENDENT } from '../../test/support/dialects.ts';
import { GRAPHQL_TEST_ENV } from '../../test/support/graphql-test-client.ts';
import { startTestServer, type TestServer } from '../../test/support/test-server.ts';

/** What a browser opening /graphiql starts with: the Headers tab's text (if any) and the default query. */
async function openGraphiQL(t: TestServer): Promise<{ headers: string | undefined; query: string; cache: string }> {
  const page = await t.request('GET', '/graphiql');
  assert.equal(page.status, 200);
  const attribute = /<div id="graphiql"(?: data-headers="([^"]*)")?>/.exec(page.text);
  assert.ok(attribute, 'the page has its GraphiQL root');
  const headers = attribute[1]?.replaceAll('&quot;', '"').replaceAll('&lt;', '<').replaceAll('&amp;', '&');
  const script = [...page.text.matchAll(/<script src="([^"]+)"/g)]
    .map(([, src]) => src!)
    .find((src) => /start-/.test(src));
  assert.ok(script, 'the page loads its start script');
  const start = await t.request('GET', script);
  const literal = /var defaultQuery = (".*");\n/.exec(start.text)?.[1];
  assert.ok(literal, 'the start script holds the default query');
  return { headers, query: JSON.parse(literal) as string, cache: page.headers.get('cache-control') ?? '' };
}

/** The first demo account's id, as the administrator reads it. */
async function aliceId(t: TestServer): Promise<number> {
  const found = await t.request('GET', '/api/v2/users?limit=100', { token: t.adminToken });
  const users = found.body.data as { id: number; email: string }[];
  const alice = users.find((user) => user.email === 'alice@example.com');
  assert.ok(alice, 'the demo data has alice@example.com');
  return alice.id;
}

for (const dialect of DATABASE_INDEPENDENT) {
  describe(`GraphiQL's default query (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    before(async () => {
      // A newcomer's development server: the demo data of a brand-new database.
      t = await startTestServer(dialect, { ...GRAPHQL_TEST_ENV, DEMO_DATA: 'true' });
    });
    after(() => t?.close());

    it('answers data with no errors as the page sends it in development, signed in as a demo account', async () => {
      const { headers, query, cache } = await openGraphiQL(t);
      assert.ok(headers, 'the Headers tab is preset');
      assert.equal(cache, 'no-store', 'a page holding a token is never cached');
      const res = await t.request('POST', '/graphql', {
        body: { query },
        headers: JSON.parse(headers) as Record<string, string>,
      });
      assert.equal(res.status, 200);
      assert.equal(res.body.errors, undefined, JSON.stringify(res.body.errors));
      const posts = res.body.data.posts as { title: string; author: { name: string } }[];
      assert.ok(posts.length > 0, 'the demo posts');
      assert.ok(posts.every((post) => post.title && post.author.name));
      // The preset is a user's token, not the administrator's.
      const me = await t.request('POST', '/graphql', {
        body: { query: '{ users(limit: 100) { id email } }' },
        headers: JSON.parse(headers) as Record<string, string>,
      });
      const emails = (me.body.data.users as { email: string | null }[]).map((user) => user.email).filter(Boolean);
      assert.deepEqual(emails, ['alice@example.com']);
    });

    it('signs the preset for the demo account as it is now, without its password: none once it is suspended', async () => {
      const alice = await aliceId(t);
      // A changed password does not matter: the server signs the token for the account, it does not sign in.
      const changed = await t.request('PATCH', `/api/v2/users/${alice}`, {
        body: { password: 'a-password-nobody-published' },
        token: t.adminToken,
      });
      assert.equal(changed.status, 200);
      const preset = (await openGraphiQL(t)).headers;
      assert.ok(preset, 'preset after a password change');
      const { Authorization } = JSON.parse(preset) as { Authorization: string };
      const claims = JSON.parse(Buffer.from(Authorization.split('.')[1]!, 'base64url').toString()) as {
        sub: string;
        role: string;
      };
      assert.deepEqual([claims.sub, claims.role], [String(alice), 'user']);

      const suspended = await t.request('PATCH', `/api/v2/users/${alice}`, {
        body: { status: 'suspended' },
        token: t.adminToken,
      });
      assert.equal(suspended.status, 200);
      try {
        const { headers, cache } = await openGraphiQL(t);
        assert.equal(headers, undefined, 'no token of a suspended account');
        assert.notEqual(cache, 'no-store');
      } finally {
        await t.request('PATCH', `/api/v2/users/${alice}`, { body: { status: 'active' }, token: t.adminToken });
      }
    });

    it('presets nothing where no demo account signs in, and never in production', async () => {
      const environments: Record<string, string>[] = [
        { DEMO_DATA: 'false' },
        {
          NODE_ENV: 'production',
          GRAPHIQL: 'true',
          DEMO_DATA: 'true',
          JWT_SECRET: 'production-secret-production-secret',
        },
      ];
      for (const env of environments) {
        const other = await startTestServer(dialect, { ...GRAPHQL_TEST_ENV, ...env });
        try {
          const { headers, query, cache } = await openGraphiQL(other);
          assert.equal(headers, undefined, JSON.stringify(env));
          assert.notEqual(cache, 'no-store');
          assert.match(query, /POST \/api\/v2\/auth\/token/, 'the query says where a token comes from');
        } finally {
          await other.close();
        }
      }
    });
  });
}
