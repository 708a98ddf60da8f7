import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { errorCodes, gql, GRAPHQL_TEST_ENV } from '../../../test/support/graphql-test-client.ts';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

const ADD =
  'mutation ($input: AddCommentInput!) { addComment(input: $input) { id text createdAt author { id } post { id } } }';
const DELETE = 'mutation ($id: ID!) { deleteComment(id: $id) }';
const LIKE = 'mutation ($id: ID!) { likeComment(commentId: $id) { commentId userId createdAt user { id } } }';
const UNLIKE = 'mutation ($id: ID!) { unlikeComment(commentId: $id) }';
const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

type User = Awaited<ReturnType<TestServer['createUser']>>;

for (const dialect of DIALECTS) {
  describe(`comments and likes GraphQL (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let author: User;
    let postId: string;
    before(async () => {
      t = await startTestServer(dialect, GRAPHQL_TEST_ENV);
      author = await t.createUser();
      const post = await t.request('POST', `/api/users/${author.id}/posts`, {
        token: author.token,
        body: { title: 'Liked', content: 'Text' },
      });
      postId = String(post.body.id);
    });
    after(() => t?.close());

    async function addComment(user: User, text = 'Nice') {
      const res = await gql(t, ADD, { variables: { input: { postId, text } }, token: user.token });
      assert.equal(res.body.errors, undefined, res.text);
      return res.body.data.addComment as { id: string; text: string; createdAt: string };
    }

    describe('comments', () => {
      it('adds a comment as the caller and reads it back by id, as REST shows it', async () => {
        const commenter = await t.createUser();
        const added = await addComment(commenter, 'First!');
        assert.equal(added.text, 'First!');
        assert.match(added.createdAt, ISO_MS);
        const read = await gql(
          t,
          'query ($id: ID!) { comment(id: $id) { id text createdAt author { id } post { id } } }',
          {
            variables: { id: added.id },
            token: author.token,
          },
        );
        assert.deepEqual(read.body.data.comment, {
          ...added,
          author: { id: String(commenter.id) },
          post: { id: postId },
        });
        const rest = await t.request('GET', `/api/posts/${postId}/comments/${added.id}`, { token: author.token });
        assert.equal(rest.body.createdAt, added.createdAt);
        const none = await gql(t, '{ a: comment(id: "999999") { id } b: comment(id: "x") { id } }', {
          token: author.token,
        });
        assert.deepEqual(none.body.data, { a: null, b: null });
        assert.deepEqual(errorCodes(await gql(t, `{ comment(id: "${added.id}") { id } }`)), ['UNAUTHENTICATED']);
      });

      it("reads each alias's own selection of comment(id): the relations of one are not the other's", async () => {
        const commenter = await t.createUser();
        const one = await addComment(commenter, 'One');
        const two = await addComment(commenter, 'Two');
        const res = await gql(
          t,
          `{ a: comment(id: "${one.id}") { text } b: comment(id: "${two.id}") { author { id } post { id } } }`,
          { token: author.token },
        );
        assert.equal(res.body.errors, undefined, res.text);
        assert.deepEqual(res.body.data, {
          a: { text: 'One' },
          b: { author: { id: String(commenter.id) }, post: { id: postId } },
        });
      });

      it("refuses adding a blank comment or one to an unknown post; deletes by the comment's or the post's author, not by others", async () => {
        const commenter = await t.createUser();
        const blank = await gql(t, ADD, { variables: { input: { postId, text: '' } }, token: commenter.token });
        assert.deepEqual(errorCodes(blank), ['BAD_USER_INPUT']);
        const unknown = await gql(t, ADD, {
          variables: { input: { postId: '999999', text: 'x' } },
          token: commenter.token,
        });
        assert.deepEqual(errorCodes(unknown), ['NOT_FOUND']);
        const comment = await addComment(commenter);
        const stranger = await t.createUser();
        const refused = await gql(t, DELETE, { variables: { id: comment.id }, token: stranger.token });
        assert.deepEqual(errorCodes(refused), ['FORBIDDEN']);
        const byPostAuthor = await gql(t, DELETE, { variables: { id: comment.id }, token: author.token });
        assert.deepEqual(byPostAuthor.body.data, { deleteComment: true });
        const again = await gql(t, DELETE, { variables: { id: comment.id }, token: commenter.token });
        assert.deepEqual(again.body.data, { deleteComment: false });
        const gone = await t.request('GET', `/api/posts/${postId}/comments/${comment.id}`, { token: author.token });
        assert.equal(gone.status, 404);
      });
    });

    describe('likes', () => {
      it('likes once (liking again answers the same like), lists the likes on the comment, and unlikes', async () => {
        const comment = await addComment(author);
        const fan = await t.createUser();
        const other = await t.createUser();
        const liked = await gql(t, LIKE, { variables: { id: comment.id }, token: fan.token });
        assert.equal(liked.body.errors, undefined, liked.text);
        const like = liked.body.data.likeComment;
        assert.deepEqual(like, {
          commentId: comment.id,
          userId: String(fan.id),
          createdAt: like.createdAt,
          user: { id: String(fan.id) },
        });
        assert.match(like.createdAt, ISO_MS);
        const twice = await gql(t, LIKE, { variables: { id: comment.id }, token: fan.token });
        assert.deepEqual(twice.body.data.likeComment, like);
        await gql(t, LIKE, { variables: { id: comment.id }, token: other.token });
        const list = await gql(
          t,
          `{ comment(id: "${comment.id}") { all: likes { userId } second: likes(limit: 1, offset: 1) { userId } } }`,
          { token: author.token },
        );
        assert.equal(list.body.errors, undefined, list.text);
        assert.deepEqual(list.body.data.comment, {
          all: [{ userId: String(fan.id) }, { userId: String(other.id) }],
          second: [{ userId: String(other.id) }],
        });
        const rest = await t.request('GET', `/api/comments/${comment.id}/likes`, { token: author.token });
        assert.deepEqual(
          rest.body.data.map((l: { userId: number }) => String(l.userId)),
          list.body.data.comment.all.map((l: { userId: string }) => l.userId),
        );
        assert.deepEqual((await gql(t, UNLIKE, { variables: { id: comment.id }, token: fan.token })).body.data, {
          unlikeComment: true,
        });
        assert.deepEqual((await gql(t, UNLIKE, { variables: { id: comment.id }, token: fan.token })).body.data, {
          unlikeComment: false,
        });
      });

      it("refuses anonymous likes and likes of unknown comments; shows a liker's e-mail to themselves and admins only", async () => {
        const comment = await addComment(author);
        const fan = await t.createUser();
        assert.deepEqual(errorCodes(await gql(t, LIKE, { variables: { id: comment.id } })), ['UNAUTHENTICATED']);
        assert.deepEqual(errorCodes(await gql(t, LIKE, { variables: { id: '999999' }, token: fan.token })), [
          'NOT_FOUND',
        ]);
        await gql(t, LIKE, { variables: { id: comment.id }, token: fan.token });
        const emails = async (token: string) =>
          (
            await gql(t, `{ comment(id: "${comment.id}") { likes { user { email } } } }`, { token })
          ).body.data.comment.likes.map((l: { user: { email: string } }) => l.user.email);
        assert.deepEqual(await emails(author.token), ['']);
        assert.deepEqual(await emails(fan.token), [fan.user.email]);
        assert.deepEqual(await emails(t.adminToken), [fan.user.email]);
      });
    });
  });
}
