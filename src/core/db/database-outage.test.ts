import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { dialectNamed } from '../../../test/support/dialects.ts';
import { createCuttableProxy } from '../../../test/support/tcp-proxy.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

const postgres = dialectNamed('postgres');

describe('PostgreSQL outage', { skip: postgres.skip }, () => {
  let t: TestServer;
  let proxy: ReturnType<typeof createCuttableProxy>;
  let drop: () => Promise<void>;
  before(async () => {
    const database = await postgres.createDatabase();
    drop = database.drop;
    const url = new URL(database.url);
    proxy = createCuttableProxy({ host: url.hostname, port: Number(url.port || 5432) });
    await proxy.start();
    url.port = String(proxy.port);
    t = await startTestServer(postgres, { DATABASE_URL: url.toString() });
  });
  after(async () => {
    await t?.close();
    await proxy?.cut();
    await drop?.();
  });

  it('answers 503 fast while the database is gone and recovers on its own when it is back', async () => {
    const read = () => t.request('GET', '/api/users/1', { token: t.adminToken });
    assert.equal((await read()).status, 200);

    await proxy.cut();
    const started = Date.now();
    const during = await read();
    assert.equal(during.status, 503);
    assert.equal(during.body.error.code, 'SERVICE_UNAVAILABLE');
    assert.equal(during.headers.get('retry-after'), '5');
    assert.ok(Date.now() - started < 3000, 'fails fast');
    assert.equal((await t.request('GET', '/readyz')).status, 503);
    assert.equal((await t.request('GET', '/healthz')).status, 200, 'the process itself is alive');

    await proxy.start();
    let status = 0;
    for (let i = 0; i < 50 && status !== 200; i += 1) {
      status = (await read()).status;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(status, 200);
    assert.equal((await t.request('GET', '/readyz')).status, 200);
  });
});
