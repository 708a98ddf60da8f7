import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { DATABASE_INDEPENDENT } from '../../../test/support/dialects.ts';
import { BASE_ENV, signUpUsers } from '../../../test/reliability/harness.test-support.ts';
import {
  checkAnswer,
  checkFetched,
  parseRawResponse,
  parseResponseHead,
} from '../../../test/support/checked-answer.ts';
import { spawnServer } from '../../../test/support/child-server.ts';
import { LINGER_MAX_MS } from './body-limit.ts';

const TWO_MIB = 2 * 1024 * 1024;
const ROUNDS = 3;
const hasCurl = spawnSync('curl', ['--version']).status === 0;

/** PNG magic and 2 MiB, 2 MiB of JSON, a 2 MiB GraphQL request: each twice the 1 MiB limit. */
function oversized(userId: number) {
  const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(TWO_MIB, 1)]);
  return [
    { method: 'PUT', path: `/api/users/${userId}/avatar`, type: 'image/png', body: png, graphql: false },
    {
      method: 'POST',
      path: '/api/users',
      type: 'application/json',
      body: Buffer.from(JSON.stringify({ name: 'x'.repeat(TWO_MIB), email: 'big@example.com' })),
      graphql: false,
    },
    {
      method: 'POST',
      path: '/graphql',
      type: 'application/json',
      body: Buffer.from(JSON.stringify({ query: '{ __typename }', variables: { pad: 'x'.repeat(TWO_MIB) } })),
      graphql: true,
    },
  ];
}

/** A body with no Content-Length: sent chunked, in 64 KiB pieces. */
function chunked(body: Buffer): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (let at = 0; at < body.length; at += 65536) controller.enqueue(body.subarray(at, at + 65536));
      controller.close();
    },
  });
}

function assertTooLarge(status: number, text: string, graphql: boolean, what: string): void {
  assert.equal(status, 413, `${what}: ${text.slice(0, 200)}`);
  const body = JSON.parse(text);
  if (graphql) assert.equal(body.errors[0].extensions.code, 'PAYLOAD_TOO_LARGE', what);
  else assert.deepEqual(body, { error: { code: 'PAYLOAD_TOO_LARGE', message: 'Request body is too large' } }, what);
}

for (const dialect of DATABASE_INDEPENDENT) {
  describe(`request bodies over the 1 MiB limit (${dialect.name})`, { skip: dialect.skip }, () => {
    // A server process of its own: sharing the test's event loop, the server read in step with the
    // client and the reset of the unread body hardly ever showed.
    const t = { url: '' };
    let dir: string;
    let user: { id: number; token: string };
    let stop = async () => {};
    before(async () => {
      const database = await dialect.createDatabase();
      const server = await spawnServer({ ...BASE_ENV, DATABASE_URL: database.url });
      stop = async () => {
        server.process.kill('SIGKILL');
        await server.exited;
        await database.drop();
      };
      t.url = server.url;
      [user] = (await signUpUsers(t.url, 1, `body-limit-${dialect.name}`)) as [{ id: number; token: string }];
      dir = await mkdtemp(`${tmpdir()}/body-limit-`);
    });
    after(async () => {
      await stop();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    it('are answered 413 in the error envelope that fetch (undici) reads, with Content-Length and chunked', async () => {
      for (let round = 0; round < ROUNDS; round += 1) {
        for (const request of oversized(user.id)) {
          for (const mode of ['content-length', 'chunked'] as const) {
            const what = `${request.method} ${request.path} (${mode}, round ${round})`;
            const response = await fetch(`${t.url}${request.path}`, {
              method: request.method,
              headers: { 'content-type': request.type, authorization: `Bearer ${user.token}` },
              body: mode === 'chunked' ? chunked(request.body) : request.body,
              duplex: 'half',
            } as RequestInit).catch((error: Error & { cause?: { code?: string } }) => {
              throw new Error(`${what}: no answer (${error.cause?.code ?? error.message})`);
            });
            const checked = await checkFetched(request.method, response);
            assertTooLarge(checked.status, checked.text, request.graphql, what);
            assert.equal(response.headers.get('connection'), 'close', what);
          }
        }
      }
    });

    it(
      'are answered 413 in the error envelope that curl reads, with Content-Length and chunked',
      { skip: hasCurl ? false : 'no curl' },
      async () => {
        for (const [index, request] of oversized(user.id).entries()) {
          const file = `${dir}/body-${index}`;
          await writeFile(file, request.body);
          for (const mode of ['content-length', 'chunked'] as const) {
            const what = `curl ${request.method} ${request.path} (${mode})`;
            const args = [
              '-sS',
              '-X',
              request.method,
              `${t.url}${request.path}`,
              '-H',
              `content-type: ${request.type}`,
              '-D',
              `${file}.head`,
            ];
            args.push('-H', `authorization: Bearer ${user.token}`, '--data-binary', `@${file}`);
            if (mode === 'chunked') args.push('-H', 'transfer-encoding: chunked');
            const { stdout } = await promisify(execFile)('curl', args, { maxBuffer: 1024 * 1024 }).catch(
              (error: Error & { stderr?: string }) => {
                throw new Error(`${what}: ${error.stderr ?? error.message}`);
              },
            );
            // The head of the last response curl read (after any 100 Continue), and the body it decoded.
            const head = (await readFile(`${file}.head`, 'latin1')).split('\r\n\r\n').filter(Boolean).at(-1) ?? '';
            const checked = await checkAnswer(request.method, request.path, {
              ...parseResponseHead(head),
              text: stdout,
            });
            assertTooLarge(checked.status, checked.text, request.graphql, what);
          }
        }
      },
    );

    it('reads on after the 413 to a client that keeps sending, then closes within the bound', async () => {
      const { hostname, port } = new URL(t.url);
      // A client that keeps sending after the server has shut its side (an upload in progress does).
      const socket = connect({ port: Number(port), host: hostname, allowHalfOpen: true });
      let received = '';
      socket.on('data', (chunk) => (received += chunk.toString('latin1')));
      socket.on('error', () => {});
      const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(Date.now())));
      socket.write(
        `POST /api/users HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\nContent-Length: ${1024 * 1024 * 1024}\r\n\r\n`,
      );
      const started = Date.now();
      // An endless slow upload: 64 KiB every 50 ms.
      const pump = setInterval(() => socket.writable && socket.write(Buffer.alloc(65536, 0x20)), 50);
      try {
        const closedAt = await closed;
        assert.match(received, /^HTTP\/1\.1 413 /);
        assert.match(received, /"code":"PAYLOAD_TOO_LARGE"/);
        await checkAnswer('POST', '/api/users', parseRawResponse(received)!);
        // Read and discarded for a while (a reset at once would lose the answer), but not for ever.
        assert.ok(closedAt - started > 1000, `closed after ${closedAt - started} ms`);
        assert.ok(closedAt - started < LINGER_MAX_MS + 3000, `closed after ${closedAt - started} ms`);
      } finally {
        clearInterval(pump);
        socket.destroy();
      }
    });
  });
}
