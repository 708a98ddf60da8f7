import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer } from '../../../test/support/test-server.ts';

const PRODUCTION = { NODE_ENV: 'production', REPORT_WORKER: 'false' };

for (const dialect of DIALECTS) {
  describe(`who reads /metrics (${dialect.name})`, { skip: dialect.skip }, () => {
    it('in production serves /metrics on the main port to an admin token only: 401 without a token, 403 for a user', async () => {
      const t = await startTestServer(dialect, PRODUCTION);
      try {
        const anonymous = await t.request('GET', '/metrics');
        assert.equal(anonymous.status, 401);
        assert.equal(anonymous.body.error.code, 'UNAUTHORIZED');
        assert.doesNotMatch(anonymous.text, /http_requests_total/);
        const user = await t.createUser();
        const forbidden = await t.request('GET', '/metrics', { token: user.token });
        assert.equal(forbidden.status, 403);
        assert.doesNotMatch(forbidden.text, /http_requests_total/);
        const admin = await t.request('GET', '/metrics', { token: t.adminToken });
        assert.equal(admin.status, 200);
        assert.match(
          admin.text,
          /http_requests_total\{method="POST",route="\/api\/users",version="1",status_code="201"\} 1/,
        );
        assert.equal(t.server.metricsUrl, undefined, 'no metrics listener without METRICS_PORT');
      } finally {
        await t.close();
      }
    });

    it('with METRICS_PORT serves /metrics without a token on that port of the same host, not on the main port, and closes it on shutdown', async () => {
      const t = await startTestServer(dialect, { ...PRODUCTION, METRICS_PORT: '0' });
      let closed = false;
      try {
        const metricsUrl = t.server.metricsUrl;
        assert.ok(metricsUrl, 'the metrics listener is up');
        assert.equal(new URL(metricsUrl).hostname, new URL(t.url).hostname);
        assert.notEqual(new URL(metricsUrl).port, new URL(t.url).port);

        const main = await t.request('GET', '/metrics', { token: t.adminToken });
        assert.equal(main.status, 404, 'not on the main port, not even for an admin');
        assert.equal(main.body.error.code, 'NOT_FOUND');

        const scrape = await fetch(`${metricsUrl}/metrics`);
        assert.equal(scrape.status, 200);
        assert.match(scrape.headers.get('content-type') ?? '', /text\/plain/);
        // It counts the main port's traffic: the same app's registry.
        assert.match(await scrape.text(), /http_requests_total\{method="GET",route="unmatched",status_code="404"\} 1/);
        assert.equal((await fetch(`${metricsUrl}/api/users`)).status, 404, 'the metrics port serves nothing else');

        await t.close();
        closed = true;
        await assert.rejects(fetch(`${metricsUrl}/metrics`), 'the metrics port is closed with the server');
      } finally {
        if (!closed) await t.close();
      }
    });

    it('outside production serves /metrics on the main port without a token', async () => {
      const t = await startTestServer(dialect, { NODE_ENV: 'development', REPORT_WORKER: 'false' });
      try {
        const res = await t.request('GET', '/metrics');
        assert.equal(res.status, 200);
        assert.match(res.text, /process_resident_memory_bytes/);
      } finally {
        await t.close();
      }
    });
  });
}
