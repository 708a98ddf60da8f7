import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { statementsOf } from '../../../test/support/statements-of.ts';
import { findPostsByIds, listPostsOfAuthors } from './posts.repository.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';
import type { PostsService } from './posts.service.ts';

/** The service calls GraphQL builds on: the same rules as REST, and batch loaders in one query. */
for (const dialect of DIALECTS) {
  describe(`posts service (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let posts: PostsService;
    let alice: number;
    let bob: number;
    let carol: number;
    const aliceIds: number[] = [];
    const bobIds: number[] = [];

    before(async () => {
      t = await startTestServer(dialect);
      posts = t.server.app.services.posts;
      [alice, bob, carol] = [(await t.createUser()).id, (await t.createUser()).id, (await t.createUser()).id];
      const admin = { userId: 1, role: 'admin' as const };
      for (let i = 0; i < 5; i += 1) {
        aliceIds.push((await posts.createPost(admin, { title: `A${i}`, content: 'c', authorId: alice })).id);
        bobIds.push((await posts.createPost(admin, { title: `B${i}`, content: 'c', authorId: bob })).id);
      }
    });
    after(() => t?.close());

    it('findPostsByAuthorIds returns newest first per author, cut by limit and offset, with an entry for every author', async () => {
      const page = await posts.findPostsByAuthorIds([alice, bob, carol, alice], { limit: 2, offset: 1 });
      assert.deepEqual([...page.keys()].sort(), [alice, bob, carol].sort());
      assert.deepEqual(
        page.get(alice)!.map((p) => p.id),
        aliceIds.toReversed().slice(1, 3),
      );
      assert.deepEqual(
        page.get(bob)!.map((p) => p.id),
        bobIds.toReversed().slice(1, 3),
      );
      assert.deepEqual(page.get(carol), []);
      const defaults = await posts.findPostsByAuthorIds([alice]);
      assert.equal(defaults.get(alice)!.length, 5);
      assert.equal((await posts.findPostsByAuthorIds([])).size, 0);
    });

    it('findPostsByAuthorIds uses one query whatever the number of authors', async () => {
      // Its own statements only: the report worker polls the same database meanwhile.
      const { statements } = await statementsOf(t.server.db, () =>
        posts.findPostsByAuthorIds([alice, bob, carol], { limit: 3 }),
      );
      assert.equal(statements.length, 1, statements.join('\n'));
    });

    it('gives each column list, window and number of ids its own rows when they alternate (statements built once per shape)', async () => {
      const db = t.server.db;
      const keys = (rows: object[]) => [...new Set(rows.map((row) => Object.keys(row).sort().join()))];
      const newest = (ids: number[]) => ids.toReversed();
      // Ordered by author, then newest first within each author.
      const page = (limit: number, offset: number) =>
        [...[alice, bob].sort((a, b) => a - b)].flatMap((author) =>
          newest(author === alice ? aliceIds : bobIds).slice(offset, offset + limit),
        );
      for (let round = 0; round < 2; round += 1) {
        const titles = await listPostsOfAuthors(db, [alice, bob], { limit: 2, offset: 1 }, ['title']);
        assert.deepEqual(
          titles.map((p) => p.id),
          page(2, 1),
        );
        assert.deepEqual(keys(titles), ['author_id,id,title']);
        const contents = await listPostsOfAuthors(db, [bob, alice], { limit: 1, offset: 3 }, [
          'content',
          'title',
          'content',
        ]);
        assert.deepEqual(
          contents.map((p) => p.id),
          page(1, 3),
        );
        assert.deepEqual(keys(contents), ['author_id,content,id,title']);
        const one = await listPostsOfAuthors(db, [bob], { limit: 3, offset: 0 }, ['title']);
        assert.deepEqual(
          one.map((p) => p.id),
          newest(bobIds).slice(0, 3),
        );
        const all = await listPostsOfAuthors(db, [alice, bob, carol], { limit: 10, offset: 0 });
        assert.equal(all.length, 10);
        assert.deepEqual(keys(all), [Object.keys(all[0]!).sort().join()]);
        assert.ok(keys(all)[0]!.includes('content') && keys(all)[0]!.includes('created_at'));

        const pair = [aliceIds[0]!, bobIds[1]!];
        const byTitle = await findPostsByIds(db, pair, ['id', 'title']);
        assert.deepEqual(
          byTitle.map((p) => p.id).sort((a, b) => a - b),
          [...pair].sort((a, b) => a - b),
        );
        assert.deepEqual(keys(byTitle), ['id,title']);
        const byAuthor = await findPostsByIds(db, pair, ['author_id', 'id']);
        assert.deepEqual(keys(byAuthor), ['author_id,id']);
        assert.deepEqual(
          byAuthor.map((p) => p.author_id).sort((a, b) => a - b),
          [alice, bob].sort((a, b) => a - b),
        );
        const three = await findPostsByIds(db, [...pair, aliceIds[2]!], ['id', 'title']);
        assert.equal(three.length, 3);
        const whole = await findPostsByIds(db, [bobIds[2]!]);
        assert.deepEqual(
          whole.map((p) => [p.id, p.title]),
          [[bobIds[2], 'B2']],
        );
        assert.ok(keys(whole)[0]!.includes('content'));
      }
    });

    it('findPostsByIds returns the posts that exist', async () => {
      const found = await posts.findPostsByIds([aliceIds[0]!, bobIds[0]!, 999999, aliceIds[0]!]);
      assert.deepEqual(
        found.map((p) => p.id).sort((a, b) => a - b),
        [aliceIds[0], bobIds[0]].sort((a, b) => a! - b!),
      );
    });

    it('listPosts filters by author, newest first, default 20 and at most 100', async () => {
      const actor = { userId: carol, role: 'user' as const };
      assert.deepEqual(
        (await posts.listPosts(actor, { authorId: bob })).map((p) => p.id),
        bobIds.toReversed(),
      );
      assert.deepEqual(
        (await posts.listPosts(actor, { authorId: bob, limit: 2, offset: 1 })).map((p) => p.id),
        bobIds.toReversed().slice(1, 3),
      );
      assert.equal((await posts.listPosts(actor, { limit: 1000 })).length, 10);
      assert.deepEqual(await posts.listPosts(actor, { authorId: carol }), []);
      await assert.rejects(posts.listPosts(null, {}), { code: 'UNAUTHORIZED' });
    });

    it('createPost validates its input and permissions like REST', async () => {
      const actor = { userId: carol, role: 'user' as const };
      await assert.rejects(
        posts.createPost(actor, { title: '', content: 'c', authorId: carol }),
        (e: { code: string; details: { field: string }[] }) =>
          e.code === 'VALIDATION_ERROR' && e.details[0]!.field === 'title',
      );
      await assert.rejects(posts.createPost(actor, { title: 't', content: 'c' }), { code: 'VALIDATION_ERROR' });
      await assert.rejects(posts.createPost(actor, { title: 't', content: 'c', authorId: alice }), {
        code: 'FORBIDDEN',
      });
      await assert.rejects(
        posts.createPost({ userId: 1, role: 'admin' }, { title: 't', content: 'c', authorId: 999999 }),
        { code: 'NOT_FOUND' },
      );
      await assert.rejects(posts.createPost(null, { title: 't', content: 'c', authorId: carol }), {
        code: 'UNAUTHORIZED',
      });
      const created = await posts.createPost(actor, { title: 't', content: 'c', authorId: carol });
      assert.equal(created.authorId, carol);
      assert.deepEqual(await posts.getPost(actor, created.id), created);
      await assert.rejects(posts.getPost(actor, 999999), { code: 'NOT_FOUND' });
    });
  });
}
