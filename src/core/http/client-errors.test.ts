import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { DATABASE_INDEPENDENT } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

interface RawAnswer {
  status: number;
  headers: string;
  body: string;
  /** A socket error (a reset) seen before the answer was read whole. */
  error?: string;
}

/** Sends `head` as it is over a new connection and reads the answer until the server closes it. */
function rawExchange(base: string, head: string): Promise<RawAnswer> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    let error: string | undefined;
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', (e) => (error = (e as NodeJS.ErrnoException).code ?? e.message));
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [headers = '', body = ''] = text.split('\r\n\r\n');
      resolve({
        status: Number(/^HTTP\/1\.1 (\d+)/.exec(headers)?.[1] ?? 0),
        headers,
        body,
        ...(error ? { error } : {}),
      });
    });
    socket.write(head);
  });
}

for (const dialect of DATABASE_INDEPENDENT) {
  describe(`requests Node's HTTP parser refuses (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(dialect);
    });
    after(() => t?.close());

    it('answers a URL over 16 KiB with 414 URI_TOO_LONG in the error envelope, as a 9 KiB one, and no reset', async () => {
      for (const length of [9_000, 17_000, 40_000]) {
        const answer = await rawExchange(
          t.url,
          `GET /api/v2/users?search=${'a'.repeat(length)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
        );
        assert.equal(answer.error, undefined, `${length}: ${answer.error}`);
        assert.equal(answer.status, 414, `${length}: ${answer.headers}`);
        assert.match(answer.headers, /content-type: application\/json/i);
        assert.equal(JSON.parse(answer.body).error.code, 'URI_TOO_LONG');
      }
    });

    it('answers header bytes over 16 KiB with a URL of any length with 431 in the error envelope', async () => {
      const headers = Array.from({ length: 20 }, (_, i) => `X-Filler-${i}: ${'b'.repeat(1000)}\r\n`).join('');
      const answer = await rawExchange(t.url, `GET /api/v2/products HTTP/1.1\r\nHost: x\r\n${headers}\r\n`);
      assert.equal(answer.error, undefined, answer.error);
      assert.equal(answer.status, 431, answer.headers);
      assert.equal(JSON.parse(answer.body).error.code, 'BAD_REQUEST');
    });

    it('answers what is not HTTP with 400 in the error envelope', async () => {
      const answer = await rawExchange(t.url, 'HELLO\x01 / HTTP/1.1\r\n\r\n');
      assert.equal(answer.status, 400, answer.headers);
      assert.equal(JSON.parse(answer.body).error.code, 'BAD_REQUEST');
    });
  });
}
