import { sql } from 'kysely';
import type { TestServer } from './test-server.ts';

/** The posts lists' suites' data (src/modules/posts/posts.*queries.test.ts, posts.graphql-queries.test.ts). */

export interface ListedPost {
  id: number;
  title: string;
  content: string;
  authorId: number;
  createdAt: string;
}

/** Titles start with a capital and differ early, so every collation orders them as JavaScript does. */
export const POSTS: [title: string, content: string][] = [
  ['Alpha news', 'About cats'],
  ['Beta release', 'The 100% sale'],
  ['Gamma', 'Alpha particles'],
  ['Delta_x', 'An underscore'],
  ['Epsilon', 'Nothing here'],
  ['Zeta ALPHA', 'Shouting'],
  ['Filler one', 'filler'],
  ['Filler two', 'filler'],
  ['Kappa', 'filler'],
  ['Lambda', 'filler'],
];

/**
 * Seeds POSTS by three authors (round robin) with creation times out of id order (one an hour, in a
 * shuffled order), returns the authors and every post as the list presents it.
 */
export async function seedPosts(t: TestServer) {
  const authors = [await t.createUser(), await t.createUser(), await t.createUser()];
  for (const [i, [title, content]] of POSTS.entries()) {
    const author = authors[i % 3]!;
    await t.request('POST', `/api/users/${author.id}/posts`, { token: author.token, body: { title, content } });
  }
  const ids = (await t.server.db.selectFrom('posts').select('id').orderBy('id').execute()).map((r) => r.id);
  for (const [i, id] of ids.entries()) {
    const at = new Date(Date.UTC(2026, 0, 1, (i * 7) % ids.length)).toISOString();
    await sql`update posts set created_at = ${at} where id = ${id}`.execute(t.server.db);
  }
  const all = (await t.request('GET', '/api/posts?limit=100', { token: authors[0]!.token })).body.data as ListedPost[];
  return { authors, all };
}

/**
 * The `include` suites' threads: Alice's post with 25 comments (Bob's and Alice's, alternating), Bob's 22
 * posts and Bob's like of the first comment — more than the 20 an embedded list holds. Ids oldest first.
 */
export async function seedBusyThreads(t: TestServer) {
  const alice = await t.createUser({ name: 'Alice' });
  const bob = await t.createUser({ name: 'Bob' });
  const { posts, comments, likes } = t.server.app.services;
  const as = (user: { id: number }) => ({ userId: user.id, role: 'user' as const });
  const busyPost = (await posts.createPost(as(alice), { title: 'Busy', content: 'c', authorId: alice.id })).id;
  const busyComments: number[] = [];
  for (let i = 0; i < 25; i += 1) {
    const author = i % 2 === 0 ? bob : alice;
    busyComments.push((await comments.createComment(as(author), busyPost, { text: `comment ${i}` })).id);
  }
  const bobPosts: number[] = [];
  for (let i = 0; i < 22; i += 1)
    bobPosts.push((await posts.createPost(as(bob), { title: `Bob ${i}`, content: 'c', authorId: bob.id })).id);
  await likes.likeComment(as(bob), busyComments[0]!);
  return { alice, bob, busyPost, busyComments, bobPosts };
}
