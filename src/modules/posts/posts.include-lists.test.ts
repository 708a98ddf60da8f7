import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { QUIET_ENV, createProduct, placeOrder } from '../../../test/support/orders.ts';
import { statementsOf } from '../../../test/support/statements-of.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const PEOPLE = 52;

/**
 * DECISIONS §12's `include` on every list, under /api/v2: the statements of a page with `include` do
 * not depend on its size (5 or 50 items, each with its own related objects, so a read per item or per
 * related object would show), and embedded users keep the e-mail privacy of a direct read.
 */
for (const dialect of DIALECTS) {
  describe(`include on every list, statements and privacy (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    const people: { id: number; token: string; user: Json }[] = [];
    let busyPost: number;
    let busyComment: number;

    before(async () => {
      t = await startTestServer(dialect, QUIET_ENV);
      const { posts, comments, likes } = t.server.app.services;
      const as = (user: { id: number }) => ({ userId: user.id, role: 'user' as const });
      for (let i = 0; i < PEOPLE; i += 1) people.push(await t.createUser({ name: `Person ${i}` }));
      const [first] = people;
      busyPost = (await posts.createPost(as(first!), { title: 'Busy', content: 'c', authorId: first!.id })).id;
      for (const person of people) {
        const own = await posts.createPost(as(person), { title: 'Own', content: 'c', authorId: person.id });
        await comments.createComment(as(person), own.id, { text: 'on my own' });
        const comment = await comments.createComment(as(person), busyPost, { text: `by ${person.id}` });
        busyComment ??= comment.id;
      }
      for (let i = 0; i < PEOPLE; i += 1)
        await posts.createPost(as(first!), { title: `More ${i}`, content: 'c', authorId: first!.id });
      for (const person of people) await likes.likeComment(as(person), busyComment);
      for (const person of people) {
        const product = await createProduct(t, { priceCents: 100 + person.id, stock: 5 });
        await placeOrder(t, person.token, [{ productId: product.id, quantity: 1 }]);
      }
    });
    after(() => t?.close());

    const lists = () => [
      `/api/v2/users?include=posts.comments,posts.author`,
      `/api/v2/posts?include=author.posts,comments.author`,
      `/api/v2/users/${people[0]!.id}/posts?include=comments.author,author`,
      `/api/v2/posts/${busyPost}/comments?include=author.posts,post.author`,
      `/api/v2/comments/${busyComment}/likes?include=user.posts`,
      `/api/v2/orders?include=customer,items.product`,
    ];

    it('runs as many statements for a page of 5 as for a page of 50, on every list', async () => {
      for (const path of lists()) {
        const count = async (limit: number) => {
          const { result, statements } = await statementsOf(t.server.db, () =>
            t.request('GET', `${path}&limit=${limit}`, { token: t.adminToken }),
          );
          assert.equal(result.status, 200, `${path}: ${result.text}`);
          assert.equal(result.body.data.length, limit, path);
          assert.ok(
            (result.body.data as Json[]).every((item) => item._embedded || item.items),
            path,
          );
          return statements;
        };
        const five = await count(5);
        const fifty = await count(50);
        assert.equal(fifty.length, five.length, `${path}\n${five.join('\n')}\n---\n${fifty.join('\n')}`);
      }
    });

    it("shows an embedded user's email only to that user and to admins, on every list that embeds users", async () => {
      const reader = people[3]!;
      const emails = (body: Json, pick: (item: Json) => Json[]) =>
        (body.data as Json[]).flatMap(pick).map((user) => [user.id, user.email]);
      const cases: [string, (item: Json) => Json[]][] = [
        [`/api/v2/posts?include=author&authorId[in]=${reader.id},${people[5]!.id}`, (p) => [p._embedded.author]],
        [`/api/v2/posts/${busyPost}/comments?include=author&limit=100`, (c) => [c._embedded.author]],
        [`/api/v2/posts/${busyPost}/comments?include=post.author&limit=5`, (c) => [c._embedded.post._embedded.author]],
        [`/api/v2/comments/${busyComment}/likes?include=user&limit=100`, (l) => [l._embedded.user]],
      ];
      for (const [path, pick] of cases) {
        const asReader = emails((await t.request('GET', path, { token: reader.token })).body, pick);
        assert.ok(asReader.length > 0, path);
        for (const [id, email] of asReader) {
          assert.equal(email, id === reader.id ? reader.user.email : null, `${path}: user ${id}`);
        }
        assert.ok(asReader.some(([id]) => id === reader.id) || path.includes('post.author'), path);
        const asAdmin = emails((await t.request('GET', path, { token: t.adminToken })).body, pick);
        assert.ok(
          asAdmin.every(([, email]) => typeof email === 'string' && email.includes('@')),
          path,
        );
      }
    });
  });
}
