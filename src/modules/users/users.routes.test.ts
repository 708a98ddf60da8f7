import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';
import { findUsersByIds } from './users.repository.ts';

for (const dialect of DIALECTS) {
  describe(`users REST (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(dialect);
    });
    after(() => t?.close());

    describe('POST /api/users', () => {
      it('creates a user with 201, Location, links and no password in the body', async () => {
        const res = await t.request('POST', '/api/users', {
          body: { name: '  Ada Lovelace ', email: 'Ada@Example.COM', age: 36, password: 'correct horse' },
        });
        assert.equal(res.status, 201);
        assert.equal(res.headers.get('location'), `/api/users/${res.body.id}`);
        assert.equal(res.body.name, 'Ada Lovelace');
        assert.equal(res.body.email, 'ada@example.com');
        assert.equal(res.body.age, 36);
        assert.equal(res.body.role, 'user');
        assert.equal(res.body.status, 'active');
        assert.equal(res.body.emailVerified, false);
        assert.match(res.body.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
        assert.equal(res.body.password, undefined);
        assert.equal(res.body.password_hash, undefined);
        // No action links: the anonymous caller may not act on the account until they sign in.
        assert.deepEqual(res.body._links, {
          self: { href: `/api/users/${res.body.id}` },
          posts: { href: `/api/users/${res.body.id}/posts` },
          avatar: { href: `/api/users/${res.body.id}/avatar` },
        });
      });

      it('answers 422 VALIDATION_ERROR naming each missing field', async () => {
        const res = await t.request('POST', '/api/users', { body: {} });
        assert.equal(res.status, 422);
        assert.equal(res.body.error.code, 'VALIDATION_ERROR');
        assert.equal(typeof res.body.error.message, 'string');
        const fields = res.body.error.details.map((d: { field: string }) => d.field).sort();
        assert.deepEqual(fields, ['email', 'name']);
      });

      it('answers 422 for an invalid email, a blank or over-long name, a bad age and an unknown field', async () => {
        const cases: [Record<string, unknown>, string][] = [
          [{ name: 'A', email: 'not-an-email' }, 'email'],
          [{ name: '   ', email: 'blank@example.com' }, 'name'],
          [{ name: 'x'.repeat(101), email: 'long@example.com' }, 'name'],
          [{ name: 'A', email: `${'x'.repeat(250)}@example.com` }, 'email'],
          [{ name: 'A', email: 'age@example.com', age: 151 }, 'age'],
          [{ name: 'A', email: 'age2@example.com', age: 'ten' }, 'age'],
          [{ name: 'A', email: 'age3@example.com', age: 1.5 }, 'age'],
          [{ name: 'A', email: 'extra@example.com', nickname: 'x' }, 'nickname'],
          [{ name: 'A', email: 'ro@example.com', id: 99 }, 'id'],
          [{ name: 'A', email: 'pw@example.com', password: 'short' }, 'password'],
        ];
        for (const [body, field] of cases) {
          const res = await t.request('POST', '/api/users', { body });
          assert.equal(res.status, 422, JSON.stringify(body));
          assert.equal(res.body.error.code, 'VALIDATION_ERROR');
          assert.ok(
            res.body.error.details.some((d: { field: string }) => d.field === field),
            `${JSON.stringify(body)} → ${JSON.stringify(res.body.error.details)}`,
          );
        }
      });

      it('answers 409 CONFLICT for a duplicate email, whatever its case', async () => {
        const first = await t.request('POST', '/api/users', { body: { name: 'Dup', email: 'dup@example.com' } });
        assert.equal(first.status, 201);
        const second = await t.request('POST', '/api/users', { body: { name: 'Dup', email: 'DUP@example.com' } });
        assert.equal(second.status, 409);
        assert.equal(second.body.error.code, 'CONFLICT');
      });

      it('decides concurrent sign-ups with one email in the database: one 201, the rest 409', async () => {
        const results = await Promise.all(
          Array.from({ length: 8 }, () =>
            t.request('POST', '/api/users', { body: { name: 'Race', email: 'race@example.com' } }),
          ),
        );
        const statuses = results.map((r) => r.status).sort();
        assert.deepEqual(statuses, [201, 409, 409, 409, 409, 409, 409, 409]);
      });

      it('lets only an admin set role or status', async () => {
        const anonymous = await t.request('POST', '/api/users', {
          body: { name: 'R', email: 'r1@example.com', role: 'admin' },
        });
        assert.equal(anonymous.status, 403);
        assert.equal(anonymous.body.error.code, 'FORBIDDEN');
        const { token } = await t.createUser();
        const asUser = await t.request('POST', '/api/users', {
          token,
          body: { name: 'R', email: 'r2@example.com', status: 'suspended' },
        });
        assert.equal(asUser.status, 403);
        const asAdmin = await t.request('POST', '/api/users', {
          token: t.adminToken,
          body: { name: 'R', email: 'r3@example.com', role: 'admin', status: 'inactive' },
        });
        assert.equal(asAdmin.status, 201);
        assert.equal(asAdmin.body.role, 'admin');
        assert.equal(asAdmin.body.status, 'inactive');
      });

      it('answers 400 BAD_REQUEST for malformed JSON and 415 for a non-JSON body', async () => {
        const malformed = await t.request('POST', '/api/users', {
          raw: '{"name":',
          headers: { 'content-type': 'application/json' },
        });
        assert.equal(malformed.status, 400);
        assert.equal(malformed.body.error.code, 'BAD_REQUEST');
        const text = await t.request('POST', '/api/users', {
          raw: 'name=a',
          headers: { 'content-type': 'text/plain' },
        });
        assert.equal(text.status, 415);
        assert.equal(text.body.error.code, 'UNSUPPORTED_MEDIA_TYPE');
      });

      it('answers 413 PAYLOAD_TOO_LARGE for a body over 1 MiB', async () => {
        const res = await t.request('POST', '/api/users', {
          body: { name: 'x'.repeat(1024 * 1024 + 10), email: 'big@example.com' },
        });
        assert.equal(res.status, 413);
        assert.equal(res.body.error.code, 'PAYLOAD_TOO_LARGE');
      });
    });

    describe('GET /api/users/{id}', () => {
      it('returns the user to any signed-in user', async () => {
        const alice = await t.createUser({ name: 'Alice' });
        const bob = await t.createUser();
        const res = await t.request('GET', `/api/users/${alice.id}`, { token: bob.token });
        assert.equal(res.status, 200);
        assert.equal(res.body.name, 'Alice');
      });

      it('answers 401 with WWW-Authenticate without a token', async () => {
        const res = await t.request('GET', '/api/users/1');
        assert.equal(res.status, 401);
        assert.equal(res.body.error.code, 'UNAUTHORIZED');
        assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer/);
      });

      it('answers 404 NOT_FOUND for an unknown id and for ids that are not positive integers', async () => {
        for (const id of ['999999', 'abc', '0', '-1', '1.5', '99999999999999999999']) {
          const res = await t.request('GET', `/api/users/${id}`, { token: t.adminToken });
          assert.equal(res.status, 404, id);
          assert.equal(res.body.error.code, 'NOT_FOUND');
        }
      });
    });

    describe('GET /api/users', () => {
      let token: string;
      before(async () => {
        token = (await t.createUser({ name: 'Lister' })).token;
        for (const [name, age] of [
          ['Zed', 20],
          ['Amy', 40],
          ['Mia', null],
        ] as const) {
          await t.createUser({ name, age });
        }
        await t.createUser({ name: 'Sus', status: 'suspended' });
      });

      it('returns the page envelope with default limit 10', async () => {
        const res = await t.request('GET', '/api/users', { token });
        assert.equal(res.status, 200);
        assert.equal(res.body.pagination.page, 1);
        assert.equal(res.body.pagination.limit, 10);
        const total = res.body.pagination.total;
        assert.ok(total >= 5);
        assert.equal(res.body.pagination.totalPages, Math.ceil(total / 10));
        assert.equal(res.body.pagination.hasNext, 10 < total);
        assert.equal(res.body.pagination.hasPrev, false);
        assert.equal(res.body.data.length, Math.min(10, total));
      });

      it('computes hasNext and hasPrev from page and limit', async () => {
        const first = await t.request('GET', '/api/users?limit=2&page=1', { token });
        const total = first.body.pagination.total;
        const last = Math.ceil(total / 2);
        const lastPage = await t.request('GET', `/api/users?limit=2&page=${last}`, { token });
        assert.equal(first.body.pagination.hasNext, true);
        assert.equal(lastPage.body.pagination.hasNext, false);
        assert.equal(lastPage.body.pagination.hasPrev, true);
        const ids = first.body.data.map((u: { id: number }) => u.id);
        const second = await t.request('GET', '/api/users?limit=2&page=2', { token });
        assert.ok(second.body.data.every((u: { id: number }) => !ids.includes(u.id)));
      });

      it('raises page 0 to 1, caps limit 1000 at 100 and raises limit 0 to 1', async () => {
        const zero = await t.request('GET', '/api/users?page=0', { token });
        assert.equal(zero.body.pagination.page, 1);
        const big = await t.request('GET', '/api/users?limit=1000', { token });
        assert.equal(big.body.pagination.limit, 100);
        const none = await t.request('GET', '/api/users?limit=0', { token });
        assert.equal(none.body.pagination.limit, 1);
        assert.equal(none.body.data.length, 1);
      });

      it('answers 422 for numbers that are not numbers, unknown sorts, orders and roles', async () => {
        for (const query of [
          'page=abc',
          'limit=ten',
          'limit=1.5',
          'sort=password',
          'order=up',
          'role=root',
          'status=gone',
        ]) {
          const res = await t.request('GET', `/api/users?${query}`, { token });
          assert.equal(res.status, 422, query);
          assert.equal(res.body.error.code, 'VALIDATION_ERROR');
          assert.ok(res.body.error.details.length > 0);
        }
      });

      it('filters by role and status with equality', async () => {
        const admins = await t.request('GET', '/api/users?role=admin', { token });
        assert.ok(admins.body.data.length >= 1);
        assert.ok(admins.body.data.every((u: { role: string }) => u.role === 'admin'));
        const suspended = await t.request('GET', '/api/users?status=suspended&role=user', { token });
        assert.deepEqual(
          suspended.body.data.map((u: { name: string }) => u.name),
          ['Sus'],
        );
        assert.equal(suspended.body.pagination.total, 1);
      });

      it('sorts by a field in either order, ties broken by id, nulls last', async () => {
        const asc = await t.request('GET', '/api/users?sort=name&order=asc&limit=100', { token });
        const names = asc.body.data.map((u: { name: string }) => u.name);
        assert.deepEqual(
          names,
          [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)),
        );
        const desc = await t.request('GET', '/api/users?sort=age&order=desc&limit=100', { token });
        const ages = desc.body.data.map((u: { age: number | null }) => u.age);
        const firstNull = ages.indexOf(null);
        assert.deepEqual(
          ages.slice(0, firstNull),
          [...ages.slice(0, firstNull)].sort((a, b) => b - a),
        );
        assert.ok(ages.slice(firstNull).every((a: number | null) => a === null));
        const byId = await t.request('GET', '/api/users?order=desc&limit=100', { token });
        const ids = byId.body.data.map((u: { id: number }) => u.id);
        assert.deepEqual(
          ids,
          [...ids].sort((a, b) => b - a),
        );
      });

      it('answers sorts, orders, filters and pages that alternate each with its own rows (statements built once per shape)', async () => {
        const list = async (query: string) => {
          const res = await t.request('GET', `/api/users?${query}`, { token });
          assert.equal(res.status, 200, res.text);
          return res.body.data as { id: number; name: string; age: number | null; role: string; status: string }[];
        };
        const everyone = await list('limit=100&order=asc');
        const byNameAsc = [...everyone].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id - b.id));
        for (let round = 0; round < 2; round += 1) {
          assert.deepEqual(
            (await list('sort=name&order=asc&limit=100')).map((u) => u.id),
            byNameAsc.map((u) => u.id),
          );
          assert.deepEqual(
            (await list('sort=name&order=asc&limit=2&page=2')).map((u) => u.id),
            byNameAsc.slice(2, 4).map((u) => u.id),
          );
          assert.deepEqual(
            (await list('limit=100&order=desc')).map((u) => u.id),
            everyone.map((u) => u.id).toReversed(),
          );
          const ages = (await list('sort=age&order=asc&limit=100')).map((u) => u.age);
          assert.deepEqual(
            ages.filter((a) => a !== null),
            ages.filter((a) => a !== null).sort((a, b) => a! - b!),
          );
          assert.ok(ages.includes(null) && ages.slice(ages.indexOf(null)).every((a) => a === null));
          assert.deepEqual(
            (await list('status=suspended&limit=100')).map((u) => u.name),
            ['Sus'],
          );
          const active = await list('status=active&role=user&limit=100');
          assert.deepEqual(
            active.map((u) => u.id),
            everyone.filter((u) => u.status === 'active' && u.role === 'user').map((u) => u.id),
          );
        }
      });

      it('findUsersByIds reads each column list and number of ids with its own statement', async () => {
        const ids = ((await t.request('GET', '/api/users?limit=3', { token })).body.data as { id: number }[]).map(
          (u) => u.id,
        );
        assert.equal(ids.length, 3);
        const keys = (rows: object[]) => [...new Set(rows.map((row) => Object.keys(row).sort().join()))];
        const sorted = (rows: { id: number }[]) => rows.map((row) => row.id).sort((a, b) => a - b);
        for (let round = 0; round < 2; round += 1) {
          const names = await findUsersByIds(t.server.db, ids.slice(0, 2), ['id', 'name']);
          assert.deepEqual(keys(names), ['id,name']);
          assert.deepEqual(
            sorted(names),
            ids.slice(0, 2).sort((a, b) => a - b),
          );
          const roles = await findUsersByIds(t.server.db, ids.slice(1, 3), ['role', 'id']);
          assert.deepEqual(keys(roles), ['id,role']);
          assert.deepEqual(
            sorted(roles),
            ids.slice(1, 3).sort((a, b) => a - b),
          );
          const three = await findUsersByIds(t.server.db, [...ids, 999999], ['id', 'name']);
          assert.deepEqual(
            sorted(three),
            [...ids].sort((a, b) => a - b),
          );
          const whole = await findUsersByIds(t.server.db, [ids[0]!]);
          assert.equal(whole.length, 1);
          assert.ok(keys(whole)[0]!.includes('email') && keys(whole)[0]!.includes('created_at'));
        }
      });

      it('restricts fields with `fields`, always keeping id, and rejects unknown names', async () => {
        const res = await t.request('GET', '/api/users?fields=name,email', { token });
        assert.equal(res.status, 200);
        for (const user of res.body.data) {
          assert.deepEqual(Object.keys(user).sort(), ['_links', 'email', 'id', 'name']);
        }
        const bad = await t.request('GET', '/api/users?fields=name,password', { token });
        assert.equal(bad.status, 422);
        assert.equal(bad.body.error.details[0].field, 'fields');
      });
    });

    describe('PUT and PATCH /api/users/{id}', () => {
      it('PUT replaces: name and email required, an absent age becomes null', async () => {
        const { id, token } = await t.createUser({ age: 30 });
        const res = await t.request('PUT', `/api/users/${id}`, {
          token,
          body: { name: 'Replaced', email: `replaced${id}@example.com` },
        });
        assert.equal(res.status, 200);
        assert.equal(res.body.name, 'Replaced');
        assert.equal(res.body.age, null);
        const missing = await t.request('PUT', `/api/users/${id}`, { token, body: { name: 'Only name' } });
        assert.equal(missing.status, 422);
        assert.equal(missing.body.error.details[0].field, 'email');
      });

      it('PATCH changes only the fields sent, and {} changes nothing', async () => {
        const { id, token, user } = await t.createUser({ age: 30 });
        const res = await t.request('PATCH', `/api/users/${id}`, { token, body: { age: 31 } });
        assert.equal(res.status, 200);
        assert.equal(res.body.age, 31);
        assert.equal(res.body.name, user.name);
        const empty = await t.request('PATCH', `/api/users/${id}`, { token, body: {} });
        assert.equal(empty.status, 200);
        assert.equal(empty.body.updatedAt, res.body.updatedAt);
      });

      it('answers 403 when a user edits another user, and 404 for an unknown user', async () => {
        const alice = await t.createUser();
        const bob = await t.createUser();
        const res = await t.request('PATCH', `/api/users/${alice.id}`, { token: bob.token, body: { name: 'Hacked' } });
        assert.equal(res.status, 403);
        assert.equal(res.body.error.code, 'FORBIDDEN');
        const unchanged = await t.request('GET', `/api/users/${alice.id}`, { token: alice.token });
        assert.notEqual(unchanged.body.name, 'Hacked');
        const missing = await t.request('PATCH', '/api/users/999999', { token: t.adminToken, body: { name: 'x' } });
        assert.equal(missing.status, 404);
      });

      it('answers 403 when a user raises their own role, and lets an admin do it', async () => {
        const { id, token } = await t.createUser();
        const res = await t.request('PATCH', `/api/users/${id}`, { token, body: { role: 'admin' } });
        assert.equal(res.status, 403);
        const admin = await t.request('PATCH', `/api/users/${id}`, {
          token: t.adminToken,
          body: { role: 'admin', status: 'inactive' },
        });
        assert.equal(admin.status, 200);
        assert.equal(admin.body.role, 'admin');
      });

      it('answers 409 when the new email belongs to someone else', async () => {
        const alice = await t.createUser();
        const bob = await t.createUser();
        const res = await t.request('PATCH', `/api/users/${bob.id}`, {
          token: bob.token,
          body: { email: alice.user.email },
        });
        assert.equal(res.status, 409);
        assert.equal(res.body.error.code, 'CONFLICT');
      });

      it('answers 422 naming the field for bad values and read-only fields', async () => {
        const { id, token } = await t.createUser();
        for (const [body, field] of [
          [{ name: '' }, 'name'],
          [{ email: 'nope' }, 'email'],
          [{ createdAt: '2020-01-01T00:00:00.000Z' }, 'createdAt'],
          [{ emailVerified: true }, 'emailVerified'],
        ] as const) {
          const res = await t.request('PATCH', `/api/users/${id}`, { token, body });
          assert.equal(res.status, 422, JSON.stringify(body));
          assert.equal(res.body.error.details[0].field, field);
        }
      });
    });

    describe('conditional requests', () => {
      it('GET carries a strong ETag and private Cache-Control; If-None-Match gives 304 with no body', async () => {
        const { id, token } = await t.createUser();
        const res = await t.request('GET', `/api/users/${id}`, { token });
        const etag = res.headers.get('etag');
        assert.match(etag ?? '', /^"[^"]+"$/);
        assert.equal(res.headers.get('cache-control'), 'private, no-cache');
        assert.match(res.headers.get('vary') ?? '', /Authorization/);
        for (const header of [etag!, `W/${etag}`, `"other", ${etag}`, '*']) {
          const cached = await t.request('GET', `/api/users/${id}`, {
            token,
            headers: { 'if-none-match': header, 'cache-control': 'no-cache' },
          });
          assert.equal(cached.status, 304, header);
          assert.equal(cached.text, '');
          assert.equal(cached.headers.get('etag'), etag);
        }
        const stale = await t.request('GET', `/api/users/${id}`, { token, headers: { 'if-none-match': '"stale"' } });
        assert.equal(stale.status, 200);
      });

      it('the ETag changes when the user changes', async () => {
        const { id, token } = await t.createUser();
        const before = (await t.request('GET', `/api/users/${id}`, { token })).headers.get('etag');
        await t.request('PATCH', `/api/users/${id}`, { token, body: { name: 'Changed' } });
        const after = (await t.request('GET', `/api/users/${id}`, { token })).headers.get('etag');
        assert.notEqual(before, after);
      });

      it('lists carry an ETag too', async () => {
        const res = await t.request('GET', '/api/users', { token: t.adminToken });
        const again = await t.request('GET', '/api/users', {
          token: t.adminToken,
          headers: { 'if-none-match': res.headers.get('etag')! },
        });
        assert.equal(again.status, 304);
      });

      it('If-Match that matches lets PUT, PATCH and DELETE through; a stale one is 412 and changes nothing', async () => {
        const { id, token } = await t.createUser();
        const etag = (await t.request('GET', `/api/users/${id}`, { token })).headers.get('etag')!;
        const ok = await t.request('PATCH', `/api/users/${id}`, {
          token,
          body: { name: 'V2' },
          headers: { 'if-match': etag },
        });
        assert.equal(ok.status, 200);
        for (const [method, body] of [
          ['PATCH', { name: 'V3' }],
          ['PUT', { name: 'V3', email: `v3-${id}@example.com` }],
          ['DELETE', undefined],
        ] as const) {
          const stale = await t.request(method, `/api/users/${id}`, { token, body, headers: { 'if-match': etag } });
          assert.equal(stale.status, 412, method);
          assert.equal(stale.body.error.code, 'PRECONDITION_FAILED');
        }
        const current = await t.request('GET', `/api/users/${id}`, { token });
        assert.equal(current.body.name, 'V2');
        const deleted = await t.request('DELETE', `/api/users/${id}`, {
          token,
          headers: { 'if-match': current.headers.get('etag')! },
        });
        assert.equal(deleted.status, 204);
      });
    });

    describe('DELETE /api/users/{id}', () => {
      it('answers 204 with an empty body, then 404', async () => {
        const { id, token } = await t.createUser();
        const res = await t.request('DELETE', `/api/users/${id}`, { token });
        assert.equal(res.status, 204);
        assert.equal(res.text, '');
        const again = await t.request('GET', `/api/users/${id}`, { token: t.adminToken });
        assert.equal(again.status, 404);
        const twice = await t.request('DELETE', `/api/users/${id}`, { token: t.adminToken });
        assert.equal(twice.status, 404);
      });

      it('answers 403 when a user deletes another user', async () => {
        const alice = await t.createUser();
        const bob = await t.createUser();
        const res = await t.request('DELETE', `/api/users/${alice.id}`, { token: bob.token });
        assert.equal(res.status, 403);
      });

      it('removes the user with their posts, comments and likes in one go', async () => {
        const { id } = await t.createUser();
        const other = await t.createUser();
        const db = t.server.db;
        const stamp = new Date().toISOString();
        const post = await db
          .insertInto('posts')
          .values({ author_id: id, title: 't', content: 'c', created_at: stamp, updated_at: stamp })
          .returning('id')
          .executeTakeFirstOrThrow();
        const comment = await db
          .insertInto('comments')
          .values({ post_id: post.id, author_id: other.id, text: 'on their post', created_at: stamp })
          .returning('id')
          .executeTakeFirstOrThrow();
        await db
          .insertInto('comment_likes')
          .values({ comment_id: comment.id, user_id: id, created_at: stamp })
          .execute();
        const res = await t.request('DELETE', `/api/users/${id}`, { token: t.adminToken });
        assert.equal(res.status, 204);
        assert.equal((await db.selectFrom('posts').where('author_id', '=', id).selectAll().execute()).length, 0);
        assert.equal((await db.selectFrom('comments').where('post_id', '=', post.id).selectAll().execute()).length, 0);
        assert.equal((await db.selectFrom('comment_likes').where('user_id', '=', id).selectAll().execute()).length, 0);
      });

      it('answers 409 CONFLICT for a user who has orders, and keeps everything', async () => {
        const { id, token } = await t.createUser();
        const stamp = new Date().toISOString();
        await t.server.db
          .insertInto('orders')
          .values({
            customer_id: id,
            status: 'paid',
            amount_cents: 100,
            currency: 'USD',
            created_at: stamp,
            updated_at: stamp,
          })
          .execute();
        const res = await t.request('DELETE', `/api/users/${id}`, { token });
        assert.equal(res.status, 409);
        assert.equal(res.body.error.code, 'CONFLICT');
        assert.equal((await t.request('GET', `/api/users/${id}`, { token })).status, 200);
      });
    });

    describe('admin actions', () => {
      it('verify-email sets emailVerified and is idempotent', async () => {
        const { id } = await t.createUser();
        const first = await t.request('POST', `/api/users/${id}/verify-email`, { token: t.adminToken });
        assert.equal(first.status, 200);
        assert.equal(first.body.emailVerified, true);
        const second = await t.request('POST', `/api/users/${id}/verify-email`, { token: t.adminToken });
        assert.equal(second.status, 200);
        assert.equal(second.body.updatedAt, first.body.updatedAt);
      });

      it('promote-to-admin sets the admin role and is idempotent', async () => {
        const { id } = await t.createUser();
        const first = await t.request('POST', `/api/users/${id}/actions/promote-to-admin`, { token: t.adminToken });
        assert.equal(first.status, 200);
        assert.equal(first.body.role, 'admin');
        const second = await t.request('POST', `/api/users/${id}/actions/promote-to-admin`, { token: t.adminToken });
        assert.deepEqual(second.body, first.body);
      });

      it('are refused to non-admins (403) and anonymous callers (401), and 404 for unknown users', async () => {
        const { id, token } = await t.createUser();
        assert.equal((await t.request('POST', `/api/users/${id}/verify-email`, { token })).status, 403);
        assert.equal((await t.request('POST', `/api/users/${id}/actions/promote-to-admin`, { token })).status, 403);
        assert.equal((await t.request('POST', `/api/users/${id}/verify-email`)).status, 401);
        assert.equal((await t.request('POST', '/api/users/999999/verify-email', { token: t.adminToken })).status, 404);
      });
    });
  });
}
