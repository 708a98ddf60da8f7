import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { statementsOf as statementsOfWork } from '../../test/support/statements-of.ts';
import { DIALECTS } from '../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../test/support/test-server.ts';
import { gql, GRAPHQL_TEST_ENV } from '../../test/support/graphql-test-client.ts';

const USERS = 60;
const POSTS_PER_USER = 3;
const COMMENTS_PER_POST = 3;

/** Inserts users, posts and comments straight into the tables: setup, not the subject of the test. */
async function seed(t: TestServer): Promise<void> {
  const db = t.server.db;
  const at = '2026-01-01T00:00:00.000Z';
  const users = await db
    .insertInto('users')
    .values(
      Array.from({ length: USERS }, (_, i) => ({
        name: `Batch ${i}`,
        email: `batch${i}@example.com`,
        age: null,
        role: 'user' as const,
        status: 'active' as const,
        email_verified: false,
        password_hash: null,
        created_at: at,
        updated_at: at,
      })),
    )
    .returning('id')
    .execute();
  const posts = await db
    .insertInto('posts')
    .values(
      users.flatMap((user, u) =>
        Array.from({ length: POSTS_PER_USER }, (_, p) => ({
          author_id: user.id,
          title: `Post ${u}.${p}`,
          content: 'Body',
          created_at: at,
          updated_at: at,
        })),
      ),
    )
    .returning('id')
    .execute();
  await db
    .insertInto('comments')
    .values(
      posts.flatMap((post, p) =>
        Array.from({ length: COMMENTS_PER_POST }, (_, c) => ({
          post_id: post.id,
          author_id: users[(p + c + 1) % users.length]!.id,
          text: `Comment ${p}.${c}`,
          created_at: at,
        })),
      ),
    )
    .execute();
}

const RIGHTS_LOOKUP = /^select "role", "status", "erased_at" from "users" where "id" = /;

for (const dialect of DIALECTS) {
  describe(`GraphQL batching (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(dialect, GRAPHQL_TEST_ENV);
      await seed(t);
    });
    after(() => t?.close());

    /** Runs one operation and returns the SQL statements its handler ran, with its data. */
    async function statementsOf(query: string): Promise<{ statements: string[]; data: Record<string, unknown[]> }> {
      const { result: res, statements } = await statementsOfWork(t.server.db, () =>
        gql(t, query, { token: t.adminToken }),
      );
      assert.equal(res.status, 200);
      assert.equal(res.body.errors, undefined, res.text);
      // The admin token's rights check (core/access/rights.ts) is one read per request, not per level.
      const own = statements.filter((sql) => !sql.includes('report_jobs') && !RIGHTS_LOOKUP.test(sql));
      return { statements: own, data: res.body.data };
    }

    it('runs the same small number of statements for 10 users as for 50: one per relation level', async () => {
      const small = await statementsOf('{ users(limit: 10) { posts { comments { author { name } } } } }');
      const large = await statementsOf('{ users(limit: 50) { posts { comments { author { name } } } } }');
      assert.equal(small.data.users!.length, 10);
      assert.equal(large.data.users!.length, 50);
      const comments = (large.data.users as { posts: { comments: unknown[] }[] }[]).flatMap((u) =>
        u.posts.flatMap((p) => p.comments),
      );
      // The first user is the bootstrap admin, who has written nothing.
      assert.equal(comments.length, 49 * POSTS_PER_USER * COMMENTS_PER_POST);
      assert.equal(large.statements.length, small.statements.length, large.statements.join('\n'));
      // users (the page, and its total from the shared users service), posts, comments, authors:
      // at most one statement for each of the query's five field levels, however many objects come back.
      assert.ok(large.statements.length <= 5, large.statements.join('\n'));
      const from = (table: string) =>
        large.statements.filter((sql) => new RegExp(`from "${table}"`, 'i').test(sql)).length;
      assert.equal(from('posts'), 1);
      assert.equal(from('comments'), 1);
    });

    it('batches Post.author, Post.comments, Comment.author and Comment.post per level', async () => {
      const query = (limit: number) =>
        `{ posts(limit: ${limit}) { title author { name } comments { text author { name } post { title } } } }`;
      const small = await statementsOf(query(5));
      const large = await statementsOf(query(60));
      assert.equal(large.data.posts!.length, 60);
      assert.equal(large.statements.length, small.statements.length, large.statements.join('\n'));
      assert.ok(large.statements.length <= 5, large.statements.join('\n'));
      const post = (
        large.data.posts as { title: string; author: { name: string }; comments: { post: { title: string } }[] }[]
      )[0]!;
      assert.ok(post.author.name.startsWith('Batch'));
      assert.ok(post.comments.every((c) => c.post.title === post.title));
    });

    it("reads a comment's author and post with the comment list, for every selection of them", async () => {
      const { statements, data } = await statementsOf(
        '{ posts(limit: 20) { id comments { text writer: author { name } author { email } ... on Comment { post { id title } } } } }',
      );
      const posts = data.posts as {
        id: string;
        comments: {
          text: string;
          writer: { name: string };
          author: { email: string };
          post: { id: string; title: string };
        }[];
      }[];
      assert.equal(posts.length, 20);
      for (const post of posts) {
        assert.equal(post.comments.length, COMMENTS_PER_POST);
        for (const comment of post.comments) {
          assert.match(comment.writer.name, /^Batch \d+$/);
          assert.equal(comment.author.email, `batch${comment.writer.name.slice('Batch '.length)}@example.com`);
          assert.equal(comment.post.id, post.id);
        }
      }
      // posts, comments, then the comments' authors and posts (both selections of `author` in one read).
      assert.equal(statements.filter((sql) => /from "users"/i.test(sql)).length, 1, statements.join('\n'));
      assert.ok(statements.length <= 4, statements.join('\n'));
    });

    it('reads only the columns of the fields a query selects', async () => {
      const { statements } = await statementsOf(
        '{ users(limit: 5) { posts { title comments { text author { name } } } } }',
      );
      const of = (table: string) =>
        statements.find((sql) =>
          new RegExp(`^select .* from "${table}" where "(id|author_id|post_id)" (in \\(|= any\\()`, 'i').test(sql),
        ) ?? '';
      const posts = of('posts');
      const comments = of('comments');
      const authors = of('users');
      assert.match(posts, /"title"/);
      assert.doesNotMatch(posts, /"content"|"created_at"|"updated_at"|\*/, posts);
      assert.match(comments, /"text"/);
      assert.doesNotMatch(comments, /"created_at"|\*/, comments);
      assert.match(authors, /"name"/);
      assert.doesNotMatch(authors, /"email"|"password_hash"|\*/, authors);
    });

    it('answers every field selected through fragments, inline fragments and aliases', async () => {
      const { data } = await statementsOf(`{
        users(limit: 3, offset: 1) {
          id
          posts { ...PostBody withText: comments { ... on Comment { text author { email } } } }
          short: posts(limit: 1) { title }
        }
      }
      fragment PostBody on Post { id content createdAt }`);
      type Answer = {
        id: string;
        posts: {
          id: string;
          content: string;
          createdAt: string;
          withText: { text: string; author: { email: string } }[];
        }[];
        short: { title: string }[];
      };
      const users = data.users as Answer[];
      assert.equal(users.length, 3);
      for (const user of users) {
        assert.equal(user.posts.length, POSTS_PER_USER);
        assert.equal(user.short.length, 1);
        assert.match(user.short[0]!.title, /^Post /);
        for (const post of user.posts) {
          assert.equal(post.content, 'Body');
          assert.equal(post.createdAt, '2026-01-01T00:00:00.000Z');
          assert.equal(post.withText.length, COMMENTS_PER_POST);
          for (const comment of post.withText) {
            assert.match(comment.text, /^Comment /);
            assert.match(comment.author.email, /^batch\d+@example\.com$/);
          }
        }
      }
    });
  });
}
