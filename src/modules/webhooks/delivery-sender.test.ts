import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createDeliverySender } from './delivery-sender.ts';
import { createUrlGuard } from './url-guard.ts';

const SECRET = `whsec_${Buffer.alloc(24, 7).toString('base64')}`;
const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;

/** One attempt's own resources: a timer for its timeout and a listener on the worker's signal, both gone once it ends. */
describe('webhooks: a delivery attempt', () => {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(request.url === '/slow' ? 200 : 204).end());
  });
  let url = '';
  before(async () => {
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => server.close());

  it('leaves no timer and no listener behind once answered, however long its timeout', async () => {
    const sender = createDeliverySender({ timeoutMs: 60_000, guard: createUrlGuard({ enforced: false }) });
    const stop = new AbortController();
    const attempt = { url: `${url}/hook`, secrets: [SECRET], eventId: 'evt_1', payload: '{}' };
    await sender.send(attempt, stop.signal); // the client is loaded and connected
    const before = timers();
    const answers = await Promise.all(Array.from({ length: 20 }, () => sender.send(attempt, stop.signal)));
    assert.deepEqual(new Set(answers.map((answer) => answer.kind === 'answered' && answer.status)), new Set([204]));
    assert.ok(timers() <= before, `${timers()} timers after 20 attempts, ${before} before`);
    await sender.close();
  });
});
