import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

/** `/api/webhooks` over HTTP: CRUD, the secret's one showing, rotation, the 401/403/404/412/422 answers. */
for (const dialect of DIALECTS) {
  describe(`webhooks: endpoints over REST (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let userToken: string;
    before(async () => {
      // The workers stay idle here: nothing listens at these URLs, and no event is of interest.
      t = await startTestServer(dialect, { REPORT_WORKER: 'false', WEBHOOK_DELIVERY_POLL_MS: '60000' });
      userToken = (await t.createUser()).token;
    });
    after(() => t?.close());

    const create = (body: unknown, token = t.adminToken) => t.request('POST', '/api/webhooks', { token, body });
    const fieldsOf = (answer: { body: { error?: { details?: Array<{ field: string }> } } }) =>
      answer.body.error?.details?.map((detail) => detail.field);

    it('creates an endpoint with a whsec_ secret shown once, a Location and the defaults', async () => {
      const answer = await create({ url: 'https://example.com/hooks' });
      assert.equal(answer.status, 201, answer.text);
      const body = answer.body as Record<string, unknown>;
      assert.equal(answer.headers.get('location'), `/api/webhooks/${body.id}`);
      assert.deepEqual(body.events, ['*']);
      assert.equal(body.status, 'enabled');
      assert.equal(body.description, null);
      assert.match(body.secret as string, /^whsec_[A-Za-z0-9+/]+=*$/);
      assert.ok(Buffer.from((body.secret as string).slice(6), 'base64').length >= 24);
      const read = await t.request('GET', `/api/webhooks/${body.id}`, { token: t.adminToken });
      assert.equal(read.status, 200);
      assert.equal('secret' in read.body, false, 'the secret is never shown again');
      const list = await t.request('GET', '/api/webhooks?limit=100', { token: t.adminToken });
      assert.ok(list.body.data.some((item: { id: number }) => item.id === body.id));
      assert.ok(list.body.data.every((item: object) => !('secret' in item)));
      assert.equal(list.body.pagination.page, 1);
    });

    it('changes, disables and deletes an endpoint; an empty PATCH changes nothing', async () => {
      const { body } = await create({ url: 'http://example.com/a', events: ['order.*'], description: 'shop' });
      const patched = await t.request('PATCH', `/api/webhooks/${body.id}`, {
        token: t.adminToken,
        body: { events: ['order.paid', 'user.created'], status: 'disabled', description: null },
      });
      assert.equal(patched.status, 200, patched.text);
      assert.deepEqual(patched.body.events, ['order.paid', 'user.created']);
      assert.equal(patched.body.status, 'disabled');
      assert.equal(patched.body.description, null);
      const same = await t.request('PATCH', `/api/webhooks/${body.id}`, { token: t.adminToken, body: {} });
      assert.equal(same.body.updatedAt, patched.body.updatedAt);
      const etag = (await t.request('GET', `/api/webhooks/${body.id}`, { token: t.adminToken })).headers.get('etag')!;
      const stale = await t.request('DELETE', `/api/webhooks/${body.id}`, {
        token: t.adminToken,
        headers: { 'if-match': '"stale"' },
      });
      assert.equal(stale.status, 412);
      const gone = await t.request('DELETE', `/api/webhooks/${body.id}`, {
        token: t.adminToken,
        headers: { 'if-match': etag },
      });
      assert.equal(gone.status, 204);
      assert.equal((await t.request('GET', `/api/webhooks/${body.id}`, { token: t.adminToken })).status, 404);
      assert.equal((await t.request('DELETE', `/api/webhooks/${body.id}`, { token: t.adminToken })).status, 404);
    });

    it('rotates the secret: a new one, shown once, and the time the old one stops signing', async () => {
      const { body } = await create({ url: 'https://example.com/rotate' });
      const rotated = await t.request('POST', `/api/webhooks/${body.id}/rotate-secret`, { token: t.adminToken });
      assert.equal(rotated.status, 200, rotated.text);
      assert.match(rotated.body.secret, /^whsec_/);
      assert.notEqual(rotated.body.secret, body.secret);
      const hours = (Date.parse(rotated.body.previousSecretExpiresAt) - Date.now()) / 3_600_000;
      assert.ok(hours > 23.9 && hours <= 24, `overlap of ${hours} h`);
    });

    it('refuses non-admins: 401 without a token, 403 for a user, on every route', async () => {
      const { body } = await create({ url: 'https://example.com/perm' });
      const routes: Array<[string, string, unknown?]> = [
        ['POST', '/api/webhooks', { url: 'https://example.com' }],
        ['GET', '/api/webhooks'],
        ['GET', `/api/webhooks/${body.id}`],
        ['PATCH', `/api/webhooks/${body.id}`, { status: 'disabled' }],
        ['DELETE', `/api/webhooks/${body.id}`],
        ['POST', `/api/webhooks/${body.id}/rotate-secret`],
        ['GET', `/api/webhooks/${body.id}/deliveries`],
        ['POST', `/api/webhooks/${body.id}/deliveries/1/retry`],
        ['POST', `/api/webhooks/${body.id}/replay`, { since: '2020-01-01T00:00:00Z' }],
      ];
      for (const [method, path, payload] of routes) {
        const anonymous = await t.request(method, path, { body: payload });
        assert.equal(anonymous.status, 401, `${method} ${path}`);
        assert.equal(anonymous.body.error.code, 'UNAUTHORIZED');
        const user = await t.request(method, path, { body: payload, token: userToken });
        assert.equal(user.status, 403, `${method} ${path}`);
        assert.equal(user.body.error.code, 'FORBIDDEN');
      }
    });

    it('answers 422 naming the field for a bad URL, event type, description or replay start', async () => {
      const cases: Array<[unknown, string]> = [
        [{ url: 'not a url' }, 'url'],
        [{ url: 'ftp://example.com/x' }, 'url'],
        [{ url: 'https://' }, 'url'],
        [{ url: `https://example.com/${'a'.repeat(2048)}` }, 'url'],
        [{ url: 'https://example.com', events: ['order.shipped'] }, 'events'],
        [{ url: 'https://example.com', events: ['invoice.*'] }, 'events'],
        [{ url: 'https://example.com', events: [] }, 'events'],
        [{ url: 'https://example.com', description: 'x'.repeat(501) }, 'description'],
        [{ events: ['*'] }, 'url'],
      ];
      for (const [body, field] of cases) {
        const answer = await create(body);
        assert.equal(answer.status, 422, `${JSON.stringify(body).slice(0, 80)}: ${answer.text}`);
        assert.equal(answer.body.error.code, 'VALIDATION_ERROR');
        assert.ok(
          fieldsOf(answer)?.some((name) => name.startsWith(field)),
          `${JSON.stringify(body).slice(0, 80)} names ${field}: ${answer.text}`,
        );
      }
      const { body } = await create({ url: 'https://example.com/ok' });
      const patch = await t.request('PATCH', `/api/webhooks/${body.id}`, {
        token: t.adminToken,
        body: { url: 'javascript:alert(1)' },
      });
      assert.equal(patch.status, 422);
      assert.deepEqual(fieldsOf(patch), ['url']);
      for (const since of ['yesterday', 'ZXYxLjk5', 'evt_not-ours']) {
        const replay = await t.request('POST', `/api/webhooks/${body.id}/replay`, {
          token: t.adminToken,
          body: { since },
        });
        assert.equal(replay.status, 422, since);
        assert.deepEqual(fieldsOf(replay), ['since']);
      }
    });

    it('answers 404 for an unknown endpoint, and for a delivery of another endpoint', async () => {
      assert.equal((await t.request('GET', '/api/webhooks/999999', { token: t.adminToken })).status, 404);
      const { body } = await create({ url: 'https://example.com/404' });
      const retry = await t.request('POST', `/api/webhooks/${body.id}/deliveries/424242/retry`, {
        token: t.adminToken,
      });
      assert.equal(retry.status, 404);
      assert.equal(retry.body.error.code, 'NOT_FOUND');
      const list = await t.request('GET', `/api/webhooks/${body.id}/deliveries?status=dead`, { token: t.adminToken });
      assert.equal(list.status, 200);
      assert.deepEqual(list.body.data, []);
      const badStatus = await t.request('GET', `/api/webhooks/${body.id}/deliveries?status=lost`, {
        token: t.adminToken,
      });
      assert.equal(badStatus.status, 422);
    });
  });
}
