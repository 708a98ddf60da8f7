import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { feedEnd } from '../../../test/support/events.ts';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';
import { importTargets, STEPPED_IMPORTS, uploadProducts } from '../../../test/support/imports.ts';
import { createChunkRunner, type ImportsSettings } from './imports.chunks.ts';

/** One chunk at a time. */
const SETTINGS: ImportsSettings = { ...STEPPED_IMPORTS, lanes: 1 };

const postgres = DIALECTS.find((dialect) => dialect.name === 'postgres')!;

/**
 * PostgreSQL's feed order (events README, "Feed order"): an event is placed by its transaction's id, and
 * the feed's horizon waits only for transactions holding the writer key. A chunk's transaction gets its
 * id when it locks the job's row, so it takes the key before that: a reader following the feed while a
 * chunk is under way must not be shown a later writer's event and then miss the chunk's, placed before it.
 */
describe('imports: a chunk in flight holds the feed back (postgres)', { skip: postgres.skip }, () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer(postgres, { PROCESS_ROLE: 'api' });
  });
  after(() => t?.close());

  /** Product events after `cursor`, and the cursor after them. */
  const read = async (cursor: string | null) => {
    const page = await t.request(
      'GET',
      `/api/events?limit=1000&types=product.created${cursor ? `&after=${cursor}` : ''}`,
      {
        token: t.adminToken,
      },
    );
    assert.equal(page.status, 200, page.text);
    const names = (page.body.data as Array<{ data: { name: string } }>).map((event) => event.data.name);
    return { names, cursor: (page.body.nextCursor as string | null) ?? cursor };
  };

  it(
    "shows no later writer's event while a chunk's transaction is under way, and the chunk's events then",
    { timeout: 30_000 },
    async () => {
      let paused!: () => void;
      const reached = new Promise<void>((resolve) => (paused = resolve));
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      const targets = importTargets(t, (products) => ({
        ...products,
        // The chunk's transaction has locked the job's row (it has its id) and waits here before its writes.
        async createMany(actor, bodies) {
          paused();
          await released;
          return products.createMany!(actor, bodies);
        },
      }));
      const step = createChunkRunner(t.server.db, targets, SETTINGS);
      await uploadProducts(t, 'feed-order', 3, 'chunk row');
      let { cursor } = await read(await feedEnd(t));
      const seen: string[] = [];

      const chunk = step('feed-order-worker');
      // A failed assertion must not leave the chunk's transaction open: the server's close would wait for it.
      try {
        await reached;
        const later = await t.request('POST', '/api/products', {
          token: t.adminToken,
          body: { name: 'written while the chunk waits', category: 'feed-order', price: 1, stock: 1 },
        });
        assert.equal(later.status, 201, later.text);
        for (let i = 0; i < 5; i += 1) {
          const page = await read(cursor);
          seen.push(...page.names);
          cursor = page.cursor;
          await sleep(50);
        }
        assert.deepEqual(seen.slice(), [], "the later writer's event waits for the chunk's transaction");
      } finally {
        release();
      }
      await chunk;
      for (let i = 0; i < 100 && seen.length < 4; i += 1) {
        const page = await read(cursor);
        seen.push(...page.names);
        cursor = page.cursor;
        if (seen.length < 4) await sleep(50);
      }
      assert.deepEqual(
        seen,
        ['chunk row 0', 'chunk row 1', 'chunk row 2', 'written while the chunk waits'],
        "a reader following the feed gets the chunk's events, then the later one",
      );
    },
  );
});
