import assert from 'node:assert/strict';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { after, before, describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { importsRoutes } from './imports.routes.ts';
import type { ImportsService } from './imports.service.ts';

/** A report of `pages` pages of 1,000 errors, each line about `messageBytes` long; counts the pages read. */
function reportOf(pages: number, messageBytes: number) {
  const reads = { count: 0 };
  const service = {
    settings: { maxBytes: 1 },
    async readErrors(_actor: unknown, _id: number, afterLine: number, limit: number) {
      reads.count += 1;
      const from = afterLine + 1;
      const last = Math.min(afterLine + limit, pages * limit);
      return Array.from({ length: Math.max(0, last - from + 1) }, (_, i) => ({
        line: from + i,
        field: 'price',
        message: 'x'.repeat(messageBytes),
      }));
    },
  } as unknown as ImportsService;
  return { service, reads };
}

async function appFor(service: ImportsService): Promise<FastifyInstance> {
  const app = Fastify();
  await app.register(importsRoutes, { imports: service });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return app;
}

const urlOf = (app: FastifyInstance) => {
  const { port } = app.server.address() as { port: number };
  return `http://127.0.0.1:${port}/imports/7/errors`;
};

describe("an import's error report", () => {
  const big = reportOf(60, 1000);
  const small = reportOf(3, 10);
  let bigApp: FastifyInstance;
  let smallApp: FastifyInstance;
  before(async () => {
    bigApp = await appFor(big.service);
    smallApp = await appFor(small.service);
  });
  after(async () => {
    await bigApp.close();
    await smallApp.close();
  });

  it('is read from the database as the client takes it, not whole before the first byte', async () => {
    // 60 pages of about 1 MB: held whole, the report is every page read before the answer starts.
    const response = await new Promise<IncomingMessage>((resolve, reject) =>
      httpRequest(urlOf(bigApp), resolve).on('error', reject).end(),
    );
    assert.equal(response.statusCode, 200);
    await new Promise((resolve) => response.once('data', resolve));
    response.pause();
    // A client that stops reading: the server goes no further than its socket's buffers hold.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const whilePaused = big.reads.count;
    response.destroy();
    assert.ok(whilePaused < 30, `${whilePaused} of 60 pages read while the client read nothing`);
  });

  it('answers every error once, in line order, one NDJSON line each', async () => {
    const answer = await fetch(urlOf(smallApp));
    assert.equal(answer.status, 200);
    assert.match(answer.headers.get('content-type') ?? '', /^application\/x-ndjson/);
    const text = await answer.text();
    assert.ok(text.endsWith('\n'));
    const lines = text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { line: number });
    assert.deepEqual(
      lines.map((error) => error.line),
      Array.from({ length: 3000 }, (_, i) => i + 1),
    );
  });
});
