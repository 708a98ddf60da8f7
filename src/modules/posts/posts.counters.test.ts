import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { observeQueries } from '../../core/db/database.ts';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

/**
 * The posts lists' exact totals come from maintained counters (`post_counts`: per author, and all
 * posts) when unfiltered or filtered by author only, and stay exact through every write that adds,
 * removes or moves a post.
 */
for (const dialect of DIALECTS) {
  describe(`posts list totals from counters (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let people: { id: number; token: string }[];

    before(async () => {
      t = await startTestServer(dialect);
      people = [await t.createUser(), await t.createUser(), await t.createUser()];
    });
    after(() => t?.close());

    const write = (who: { id: number; token: string }, n: number) =>
      Promise.all(
        Array.from({ length: n }, (_, i) =>
          t.request('POST', `/api/users/${who.id}/posts`, { token: who.token, body: { title: `T${i}`, content: 'c' } }),
        ),
      );

    /** The statements one list request ran, and its total. */
    async function totalOf(path: string) {
      const statements: string[] = [];
      const stop = observeQueries(t.server.db, (text) => statements.push(text));
      const res = await t.request('GET', path, { token: t.adminToken });
      stop();
      assert.equal(res.status, 200, res.text);
      return { total: res.body.pagination.total as number, statements };
    }

    async function recount(authors?: number[]) {
      let query = t.server.db.selectFrom('posts').select((eb) => eb.fn.countAll<number | string>().as('n'));
      if (authors) query = query.where('author_id', 'in', authors);
      return Number((await query.executeTakeFirstOrThrow()).n);
    }

    async function assertExact() {
      const [a, b, c] = people.map((p) => p.id);
      const cases: [string, number[] | undefined][] = [
        ['/api/posts?count=exact', undefined],
        ['/api/posts?count=estimated', undefined],
        [`/api/posts?count=exact&authorId=${a}`, [a!]],
        [`/api/posts?count=exact&authorId[in]=${a},${c}`, [a!, c!]],
        [`/api/users/${b}/posts`, [b!]],
        [`/api/users/${b}/posts?authorId[in]=${a},${b}`, [b!]],
      ];
      for (const [path, authors] of cases) {
        const { total, statements } = await totalOf(`${path}${path.includes('?') ? '&' : '?'}limit=1`);
        assert.equal(total, await recount(authors), path);
        assert.ok(
          statements.some((s) => s.includes('post_counts')) && !statements.some((s) => /count\(\*\)/.test(s)),
          `${path}: ${statements.join('\n')}`,
        );
      }
      // An author id no user has, and author 0 (the counters' key of all posts), count nothing.
      assert.equal((await totalOf('/api/posts?count=exact&authorId=0')).total, 0);
      assert.equal((await totalOf('/api/posts?count=exact&authorId[in]=0,-1')).total, 0);
    }

    it('answers unfiltered and author totals from the counters, exactly, through every kind of write', async () => {
      await assertExact();
      await write(people[0]!, 3);
      await write(people[1]!, 2);
      await write(people[2]!, 4);
      await assertExact();
      // Statements writing many rows at once (the seed's bulk insert, an administrator's SQL).
      const at = new Date().toISOString();
      await sql`insert into posts (author_id, title, content, created_at, updated_at)
        values (${people[1]!.id}, 'bulk', 'b', ${at}, ${at}), (${people[2]!.id}, 'bulk', 'b', ${at}, ${at})`.execute(
        t.server.db,
      );
      await sql`update posts set author_id = ${people[0]!.id} where title = 'bulk'`.execute(t.server.db);
      await assertExact();
      await sql`delete from posts where author_id = ${people[2]!.id} and title = 'T0'`.execute(t.server.db);
      // A user's deletion takes their posts with it (the foreign key's cascade).
      const deleted = await t.request('DELETE', `/api/users/${people[0]!.id}`, { token: t.adminToken });
      assert.equal(deleted.status, 204);
      await assertExact();
    });

    it('counts the rows for any other filter, and the totals agree', async () => {
      const { total, statements } = await totalOf(`/api/users/${people[1]!.id}/posts?title=T1`);
      assert.ok(!statements.some((s) => s.includes('post_counts')));
      const counted = await t.server.db
        .selectFrom('posts')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('author_id', '=', people[1]!.id)
        .where('title', '=', 'T1')
        .executeTakeFirstOrThrow();
      assert.equal(total, Number(counted.n));
      assert.equal(total, 1);
    });
  });
}
