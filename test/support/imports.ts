import assert from 'node:assert/strict';
import type { BatchTarget } from '../../src/core/bulk/batch.ts';
import type { ImportResource, ImportsSettings } from '../../src/modules/imports/imports.chunks.ts';
import type { TestServer } from './test-server.ts';

/** An import runner driven step by step by a test: chunks of ten rows, two lanes, no pacing. */
export const STEPPED_IMPORTS: ImportsSettings = {
  maxBytes: 1e9,
  uploadTimeoutMs: 60_000,
  leaseMs: 60_000,
  chunkRows: 10,
  maxAttempts: 5,
  retryMs: 50,
  yieldToApi: false,
  lanes: 2,
};

const FINISHED = ['done', 'failed', 'cancelled'];

/** The server's import targets, the products' one replaced by `wrap(products)` (a test's window into its writes). */
export function importTargets(
  t: TestServer,
  wrap: (products: BatchTarget<unknown>) => BatchTarget<unknown>,
): Record<ImportResource, BatchTarget<unknown>> {
  const services = t.server.app.services as unknown as Record<ImportResource, { batchTarget: BatchTarget<unknown> }>;
  return {
    products: wrap(services.products.batchTarget),
    users: services.users.batchTarget,
    posts: services.posts.batchTarget,
  };
}

/** Uploads a create import of `rows` products named `<name> <i>` in `category`; the job's id. */
export async function uploadProducts(t: TestServer, category: string, rows: number, name: string): Promise<number> {
  const csv = ['name,category,price,stock', ...Array.from({ length: rows }, (_, i) => `${name} ${i},${category},1,1`)];
  const res = await fetch(`${t.url}/api/v2/imports?resource=products`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': 'text/csv' },
    body: csv.join('\n'),
  });
  assert.equal(res.status, 202, await res.clone().text());
  return ((await res.json()) as { id: number }).id;
}

/** Steps `step` until job `id` is over (a step that throws is the worker's logged error); the highest attempts seen. */
export async function driveImport(
  t: TestServer,
  id: number,
  step: (worker: string) => Promise<boolean>,
  worker: string,
) {
  let attempts = 0;
  for (let i = 0; i < 500; i += 1) {
    const job = await t.server.db.selectFrom('imports').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    attempts = Math.max(attempts, job.attempts);
    if (FINISHED.includes(job.status)) return { job, attempts };
    await step(worker).catch(() => undefined);
    // SQLite's statements settle at once: the server's requests get their turn between steps.
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error('the import did not finish');
}
