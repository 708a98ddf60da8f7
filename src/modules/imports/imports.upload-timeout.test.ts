import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { dialectNamed } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

const REQUEST_TIMEOUT_MS = 1000;
const UPLOAD_TIMEOUT_MS = 4000;
const sqlite = dialectNamed('sqlite');
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Sends `parts` as a chunked body, `gapMs` apart (and leaves it unfinished when `finish` is false); resolves
 * with the status and body the server answered (0 when it closed without one) and when, from the start.
 */
function slowUpload(
  t: TestServer,
  path: string,
  parts: string[],
  gapMs: number,
  { finish = true, type = 'text/csv' } = {},
): Promise<{ status: number; body: string; afterMs: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const { hostname, port } = new URL(t.url);
    const req = httpRequest({
      host: hostname,
      port,
      path,
      method: 'POST',
      headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': type },
    });
    const done = (status: number, body: string) => resolve({ status, body, afterMs: performance.now() - started });
    req.on('response', (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => done(res.statusCode ?? 0, body));
      res.on('error', () => done(res.statusCode ?? 0, body));
    });
    req.on('error', () => done(0, ''));
    void (async () => {
      for (const part of parts) {
        if (req.destroyed) return;
        req.write(part);
        await pause(gapMs);
      }
      if (finish && !req.destroyed) req.end();
    })();
  });
}

/**
 * An import's upload is one request that may take minutes over an ordinary link (DECISIONS §18):
 * `IMPORT_UPLOAD_TIMEOUT_MS` bounds it, while every other request keeps `REQUEST_TIMEOUT_MS`.
 */
describe('the time an upload may take (sqlite)', { skip: sqlite.skip }, () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer(sqlite, {
      HEADERS_TIMEOUT_MS: '500',
      REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      IMPORT_UPLOAD_TIMEOUT_MS: String(UPLOAD_TIMEOUT_MS),
    });
  });
  after(() => t?.close());

  it('takes an upload that arrives slower than the request timeout but within the upload timeout', async () => {
    const rows = ['name,category,price,stock\n', 'Slow A,slow,1,1\n', 'Slow B,slow,2,2\n', 'Slow C,slow,3,3\n'];
    const res = await slowUpload(t, '/api/v2/imports?resource=products&mode=create', rows, 700);
    assert.ok(res.afterMs > 2 * REQUEST_TIMEOUT_MS, `arrived in ${Math.round(res.afterMs)} ms`);
    assert.equal(res.status, 202, res.body);
  });

  it('answers 408 to an upload still arriving after the upload timeout', async () => {
    const parts = ['name,category,price,stock\n', ...Array.from({ length: 20 }, (_, i) => `Late ${i},late,1,1\n`)];
    const res = await slowUpload(t, '/api/v2/imports?resource=products&mode=create', parts, 400, { finish: false });
    assert.equal(res.status, 408, res.body);
    assert.equal(JSON.parse(res.body).error.code, 'BAD_REQUEST');
    assert.ok(res.afterMs >= UPLOAD_TIMEOUT_MS - 100 && res.afterMs < UPLOAD_TIMEOUT_MS + 3000, `${res.afterMs} ms`);
    // The cut-off upload's job goes once its connection closes (the rest of the body drained first).
    let jobs = Infinity;
    for (let waited = 0; waited < 5000 && jobs > 1; waited += 100) {
      jobs = (await t.server.db.selectFrom('imports').select('id').execute()).length;
      if (jobs > 1) await pause(100);
    }
    assert.equal(jobs, 1, 'only the upload that arrived is a job');
  });

  it('holds every other request’s body to the request timeout', async () => {
    const parts = ['{"name":"Slow', ' body","category":"slow",', '"price":1,', '"stock":1}'];
    const res = await slowUpload(t, '/api/v2/products', parts, 700, { type: 'application/json' });
    assert.equal(res.status, 408, res.body);
    assert.ok(res.afterMs < UPLOAD_TIMEOUT_MS, `${res.afterMs} ms`);
  });
});
