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
    request.on('end', () => {
      if (request.url === '/hang') return; // never answers
      if (request.url === '/endless') {
        // A status, then a body that never ends.
        response.writeHead(200, { 'retry-after': '7' });
        const chunk = Buffer.alloc(16 * 1024, 'x');
        const more = () => {
          if (!response.destroyed) response.write(chunk, () => setImmediate(more));
        };
        more();
        return;
      }
      response.writeHead(request.url === '/slow' ? 200 : 204).end();
    });
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

  it('takes the status of an answer whose body never ends, without waiting for the body', async () => {
    const sender = createDeliverySender({ timeoutMs: 10_000, guard: createUrlGuard({ enforced: false }) });
    const started = performance.now();
    const answer = await sender.send({ url: `${url}/endless`, secrets: [SECRET], eventId: 'evt_2', payload: '{}' });
    assert.deepEqual(answer, { kind: 'answered', status: 200, retryAfter: '7' });
    assert.ok(performance.now() - started < 5_000, 'settled long before its timeout');
    await sender.close();
  });

  it('sends nothing for a worker already stopping: the abort waits for the connection, then ends the attempt', async () => {
    const sender = createDeliverySender({ timeoutMs: 60_000, guard: createUrlGuard({ enforced: false }) });
    const stop = new AbortController();
    stop.abort(new Error('stopping'));
    const started = performance.now();
    const answer = await sender.send(
      { url: `${url}/hook`, secrets: [SECRET], eventId: 'evt_4', payload: '{}' },
      stop.signal,
    );
    assert.equal(answer.kind, 'failed');
    assert.ok(performance.now() - started < 5_000, 'ended long before its timeout');
    await sender.close();
  });

  it('fails an attempt with no answer within its timeout, and ends one at once when the worker stops', async () => {
    const sender = createDeliverySender({ timeoutMs: 300, guard: createUrlGuard({ enforced: false }) });
    const attempt = { url: `${url}/hang`, secrets: [SECRET], eventId: 'evt_3', payload: '{}' };
    assert.deepEqual(await sender.send(attempt), { kind: 'failed', error: 'no answer within 300 ms' });
    const patient = createDeliverySender({ timeoutMs: 60_000, guard: createUrlGuard({ enforced: false }) });
    const stop = new AbortController();
    const sent = patient.send(attempt, stop.signal);
    setTimeout(() => stop.abort(new Error('stopping')), 100);
    const answer = await sent;
    assert.equal(answer.kind, 'failed');
    await Promise.all([sender.close(), patient.close()]);
  });
});
