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
