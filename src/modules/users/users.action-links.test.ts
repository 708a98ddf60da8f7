import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

type Links = Record<string, { href: string; method?: string }>;

/** DECISIONS §3 `_links`: the action links (`update`, `delete`) only where the caller may follow them. */
for (const dialect of DIALECTS) {
  describe(`a user's action links (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let reader: { id: number; token: string };
    let other: { id: number; token: string };
    before(async () => {
      t = await startTestServer(dialect);
      reader = await t.createUser();
      other = await t.createUser();
    });
    after(() => t?.close());

    const linksOf = async (path: string, token: string): Promise<Links> => {
      const res = await t.request('GET', path, { token });
      assert.equal(res.status, 200, res.text);
      return res.body._links as Links;
    };

    it('shows another user no update or delete link', async () => {
      const links = await linksOf(`/api/v2/users/${other.id}`, reader.token);
      assert.deepEqual(Object.keys(links).sort(), ['avatar', 'posts', 'self']);
    });

    it('shows them to the user themself and to an admin, under the prefix the request used', async () => {
      for (const [path, token, id] of [
        [`/api/v2/users/${reader.id}`, reader.token, reader.id],
        [`/api/users/${other.id}`, t.adminToken, other.id],
      ] as const) {
        const links = await linksOf(path, token);
        const self = path.replace(/\?.*$/, '');
        assert.deepEqual(links.update, { href: self, method: 'PATCH' }, path);
        assert.deepEqual(links.delete, { href: self, method: 'DELETE' }, path);
        assert.ok(self.endsWith(`/users/${id}`));
      }
    });

    it('offers in a list exactly the actions the caller may take: each one shown succeeds, each one left out is 403', async () => {
      const page = await t.request('GET', '/api/v2/users?limit=100', { token: reader.token });
      assert.equal(page.status, 200);
      const users = page.body.data as { id: number; _links: Links }[];
      assert.ok(users.length >= 3);
      for (const user of users) {
        const patch = await t.request('PATCH', `/api/v2/users/${user.id}`, { body: {}, token: reader.token });
        if (user._links.update) assert.equal(patch.status, 200, `user ${user.id} offers update`);
        else assert.equal(patch.status, 403, `user ${user.id} offers no update`);
        assert.equal(Boolean(user._links.delete), Boolean(user._links.update));
      }
      assert.deepEqual(
        users.filter((user) => user._links.update).map((user) => user.id),
        [reader.id],
      );
    });

    it('shows an embedded author the same way', async () => {
      const post = await t.request('POST', `/api/v2/users/${other.id}/posts`, {
        body: { title: 'Links', content: 'Whose actions?' },
        token: other.token,
      });
      assert.equal(post.status, 201, post.text);
      const asReader = await t.request('GET', `/api/v2/posts/${post.body.id}?include=author`, { token: reader.token });
      assert.equal(asReader.status, 200, asReader.text);
      assert.equal(asReader.body._embedded.author._links.update, undefined);
      const asAuthor = await t.request('GET', `/api/v2/posts/${post.body.id}?include=author`, { token: other.token });
      assert.ok(asAuthor.body._embedded.author._links.update);
    });
  });
}
