import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

const sqlite = DIALECTS.find((d) => d.name === 'sqlite')!;

/** Blocks this process's event loop, which the in-process server shares. */
function busy(ms: number): void {
  const end = Date.now() + ms;
  while (Date.now() < end);
}

describe('overload shedding', () => {
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
