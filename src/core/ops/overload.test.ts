import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { spawnServer } from '../../../test/support/child-server.ts';
import { dialectNamed } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

const sqlite = dialectNamed('sqlite');

/** Blocks this process's event loop, which the in-process server shares. */
function busy(ms: number): void {
  const end = Date.now() + ms;
  while (Date.now() < end);
}

describe('overload shedding', { skip: sqlite.skip }, () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer(sqlite, { OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '50' });
  });
  after(() => t?.close());

  it('answers 503 with Retry-After in the error envelope while the event loop lags, then serves again', async () => {
    let shed: Awaited<ReturnType<TestServer['request']>> | undefined;
    for (let attempt = 0; attempt < 10 && !shed; attempt += 1) {
      busy(400);
      const res = await t.request('GET', '/api/users/1', { token: t.adminToken });
      if (res.status === 503) shed = res;
    }
    assert.ok(shed, 'a request was shed');
    assert.equal(shed.body.error.code, 'SERVICE_UNAVAILABLE');
    assert.ok(Number(shed.headers.get('retry-after')) > 0);

    let status = 0;
    for (let attempt = 0; attempt < 50 && status !== 200; attempt += 1) {
      await sleep(100);
      status = (await t.request('GET', '/api/users/1', { token: t.adminToken })).status;
    }
    assert.equal(status, 200);
  });
});

describe('overload shedding, when the machine does not run the process', { skip: sqlite.skip }, () => {
  it('does not shed the requests after a pause the process did not cause (SIGSTOP, then SIGCONT)', async () => {
    const database = await sqlite.createDatabase();
    const server = await spawnServer({
      DATABASE_URL: database.url,
      DEMO_DATA: 'false',
      JWT_SECRET: 'overload-test-secret-overload-test-secret',
      OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '500',
    });
    try {
      assert.equal((await fetch(`${server.url}/api/products`)).status, 200);
      // Two seconds the process is not run at all: its timers are late, its own loop was idle.
      server.process.kill('SIGSTOP');
      await sleep(2000);
      server.process.kill('SIGCONT');
      const statuses: number[] = [];
      for (let i = 0; i < 5; i += 1) statuses.push((await fetch(`${server.url}/api/products`)).status);
      assert.deepEqual(statuses, [200, 200, 200, 200, 200]);
    } finally {
      server.process.kill('SIGKILL');
      await server.exited;
      await database.drop();
    }
  });
});
