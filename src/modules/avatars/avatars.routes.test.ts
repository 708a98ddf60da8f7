import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { checkFetched } from '../../../test/support/checked-answer.ts';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';
import { colourOf } from './avatar-svg.ts';
import { JPEG_BYTES, PNG_BYTES, WEBP_BYTES } from '../../../test/support/avatar-samples.ts';

/** GET answers bytes, so read them raw rather than through `t.request`'s text (checked against the document all the same). */
async function getBytes(t: TestServer, path: string, token?: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${t.url}${path}`, {
    headers: { ...headers, ...(token ? { authorization: `Bearer ${token}` } : {}) },
  });
  await checkFetched('GET', response.clone());
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
}

for (const dialect of DIALECTS) {
  describe(`avatars REST (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;

    before(async () => {
      t = await startTestServer(dialect);
    });
    after(() => t?.close());

    const put = (userId: number, token: string | undefined, bytes: Uint8Array, type: string) =>
      t.request('PUT', `/api/users/${userId}/avatar`, { token, raw: bytes, headers: { 'content-type': type } });

    it('serves a generated SVG with the initials on the id colour, with ETag, Cache-Control and 304', async () => {
      const { id, token, user } = await t.createUser({ name: 'Ada Lovelace' });
      assert.equal((user as { _links: { avatar: { href: string } } })._links.avatar.href, `/api/users/${id}/avatar`);
      const res = await getBytes(t, `/api/users/${id}/avatar`, token);
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^image\/svg\+xml/);
      const svg = res.bytes.toString('utf8');
      assert.ok(svg.includes('>AL</text>'), svg);
      assert.ok(svg.includes(colourOf(id)));
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
      const etag = res.headers.get('etag');
      assert.match(etag ?? '', /^"[^"]+"$/);
      assert.equal(res.headers.get('cache-control'), 'private, no-cache');
      const cached = await getBytes(t, `/api/users/${id}/avatar`, token, { 'if-none-match': etag! });
      assert.equal(cached.status, 304);
      assert.equal(cached.bytes.length, 0);
      await t.request('PATCH', `/api/users/${id}`, { token, body: { name: 'Grace Hopper' } });
      const renamed = await getBytes(t, `/api/users/${id}/avatar`, token, { 'if-none-match': etag! });
      assert.equal(renamed.status, 200);
      assert.ok(renamed.bytes.toString().includes('>GH</text>'));
    });

    it('stores an uploaded PNG, JPEG or WebP (201 then 200) and serves it back byte for byte with its type and ETag', async () => {
      const { id, token } = await t.createUser();
      const first = await put(id, token, PNG_BYTES, 'image/png');
      assert.equal(first.status, 201);
      assert.equal(first.headers.get('location'), `/api/users/${id}/avatar`);
      assert.deepEqual(
        { userId: first.body.userId, contentType: first.body.contentType, size: first.body.size },
        { userId: id, contentType: 'image/png', size: PNG_BYTES.length },
      );
      assert.deepEqual(first.body._links, {
        self: { href: `/api/users/${id}/avatar` },
        user: { href: `/api/users/${id}` },
      });
      const png = await getBytes(t, `/api/users/${id}/avatar`, token);
      assert.equal(png.headers.get('content-type'), 'image/png');
      assert.deepEqual(png.bytes, PNG_BYTES);
      assert.equal(png.headers.get('etag'), first.headers.get('etag'), 'PUT tells the ETag GET will have');
      assert.equal(png.headers.get('cache-control'), 'private, no-cache');
      assert.equal(
        (await getBytes(t, `/api/users/${id}/avatar`, token, { 'if-none-match': png.headers.get('etag')! })).status,
        304,
      );
      for (const [bytes, type] of [
        [JPEG_BYTES, 'image/jpeg'],
        [WEBP_BYTES, 'image/webp; charset=binary'],
      ] as const) {
        const replaced = await put(id, token, bytes, type);
        assert.equal(replaced.status, 200, type);
        const served = await getBytes(t, `/api/users/${id}/avatar`, token);
        assert.equal(served.headers.get('content-type'), type.split(';')[0]);
        assert.deepEqual(served.bytes, bytes);
        assert.notEqual(served.headers.get('etag'), png.headers.get('etag'));
      }
    });

    it('refuses a text file sent as image/png (422) and an image sent as another image type (422), keeping the old avatar', async () => {
      const { id, token } = await t.createUser();
      await put(id, token, PNG_BYTES, 'image/png');
      const fake = await put(id, token, Buffer.from('just some text, not a picture'), 'image/png');
      assert.equal(fake.status, 422);
      assert.equal(fake.body.error.code, 'VALIDATION_ERROR');
      assert.equal(fake.body.error.details[0].field, 'body');
      const mislabelled = await put(id, token, JPEG_BYTES, 'image/webp');
      assert.equal(mislabelled.status, 422);
      const empty = await put(id, token, Buffer.alloc(0), 'image/jpeg');
      assert.equal(empty.status, 422);
      assert.deepEqual((await getBytes(t, `/api/users/${id}/avatar`, token)).bytes, PNG_BYTES);
    });

    it('answers 415 in the error envelope for other content types, JSON included', async () => {
      const { id, token } = await t.createUser();
      for (const type of ['text/plain', 'image/gif', 'image/svg+xml', 'application/octet-stream']) {
        const res = await put(id, token, PNG_BYTES, type);
        assert.equal(res.status, 415, type);
        assert.equal(res.body.error.code, 'UNSUPPORTED_MEDIA_TYPE');
      }
      const json = await t.request('PUT', `/api/users/${id}/avatar`, { token, body: { image: 'x' } });
      assert.equal(json.status, 415);
      assert.equal(json.body.error.code, 'UNSUPPORTED_MEDIA_TYPE');
      const none = await t.request('PUT', `/api/users/${id}/avatar`, { token });
      assert.equal(none.status, 415);
      assert.equal(
        (await t.server.db.selectFrom('user_avatars').selectAll().where('user_id', '=', id).execute()).length,
        0,
      );
    });

    it('answers 413 PAYLOAD_TOO_LARGE over 1 MiB and accepts exactly 1 MiB', async () => {
      const { id, token } = await t.createUser();
      const tooBig = Buffer.concat([PNG_BYTES, Buffer.alloc(1024 * 1024 - PNG_BYTES.length + 1)]);
      const res = await put(id, token, tooBig, 'image/png');
      assert.equal(res.status, 413);
      assert.equal(res.body.error.code, 'PAYLOAD_TOO_LARGE');
      const exact = await put(id, token, tooBig.subarray(0, 1024 * 1024), 'image/png');
      assert.equal(exact.status, 201);
      assert.equal(exact.body.size, 1024 * 1024);
    });

    it('lets only the user or an admin upload (403 otherwise, 401 without a token)', async () => {
      const alice = await t.createUser();
      const bob = await t.createUser();
      const denied = await put(alice.id, bob.token, PNG_BYTES, 'image/png');
      assert.equal(denied.status, 403);
      assert.equal(denied.body.error.code, 'FORBIDDEN');
      assert.equal((await put(alice.id, undefined, PNG_BYTES, 'image/png')).status, 401);
      assert.equal((await put(alice.id, t.adminToken, PNG_BYTES, 'image/png')).status, 201);
      assert.equal(
        (await getBytes(t, `/api/users/${alice.id}/avatar`, bob.token)).headers.get('content-type'),
        'image/png',
      );
      assert.equal((await getBytes(t, `/api/users/${alice.id}/avatar`)).status, 401);
    });

    it('answers 404 for unknown and non-integer users, and goes with its user', async () => {
      for (const id of ['999999', 'abc', '0']) {
        assert.equal((await getBytes(t, `/api/users/${id}/avatar`, t.adminToken)).status, 404, id);
        assert.equal((await put(Number(id) || 0, t.adminToken, PNG_BYTES, 'image/png')).status, 404, id);
      }
      assert.equal(
        (
          await t.request('PUT', '/api/users/abc/avatar', {
            token: t.adminToken,
            raw: PNG_BYTES,
            headers: { 'content-type': 'image/png' },
          })
        ).status,
        404,
      );
      const { id, token } = await t.createUser();
      await put(id, token, PNG_BYTES, 'image/png');
      assert.equal((await t.request('DELETE', `/api/users/${id}`, { token })).status, 204);
      assert.equal((await getBytes(t, `/api/users/${id}/avatar`, t.adminToken)).status, 404);
      assert.equal(
        (await t.server.db.selectFrom('user_avatars').selectAll().where('user_id', '=', id).execute()).length,
        0,
      );
    });

    it('keeps JSON-only bodies everywhere else: an image body on another route is 415', async () => {
      const { id, token } = await t.createUser();
      const res = await t.request('POST', `/api/users/${id}/posts`, {
        token,
        raw: PNG_BYTES,
        headers: { 'content-type': 'image/png' },
      });
      assert.equal(res.status, 415);
    });
  });
}
