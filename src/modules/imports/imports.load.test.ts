import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';
import type { LoadGauge } from './database-load.ts';
import { driveImport, importTargets, STEPPED_IMPORTS, uploadProducts } from '../../../test/support/imports.ts';
import { createChunkRunner, type ImportsSettings } from './imports.chunks.ts';
import { countTransactions } from './imports.repository.ts';

/** Two lanes, giving way to the API (the defaults): the runner driven step by step here. */
const SETTINGS: ImportsSettings = { ...STEPPED_IMPORTS, yieldToApi: true };

const postgres = DIALECTS.find((dialect) => dialect.name === 'postgres')!;

/**
 * An import's lanes give way to other work (database-load.ts): one chunk at a time while the database
 * serves other transactions, two at once while it does not. PostgreSQL only: SQLite writes one chunk.
 */
describe('imports: lanes only while the database serves little else (postgres)', { skip: postgres.skip }, () => {
  let t: TestServer;
  // The API role: no worker of the server's own claims the jobs this file's runner writes.
  before(async () => {
    t = await startTestServer(postgres, { PROCESS_ROLE: 'api', DATABASE_POOL_SIZE: '4' });
  });
  after(() => t?.close());

  /** The runner with `gauge`, its products' list creates counted while in flight. */
  function runnerWith(gauge: LoadGauge) {
    const seen = { inFlight: 0, most: 0 };
    const targets = importTargets(t, (products) => ({
      ...products,
      async createMany(actor, bodies) {
        seen.inFlight += 1;
        seen.most = Math.max(seen.most, seen.inFlight);
        // Long enough for a second lane, if there is one, to come in meanwhile.
        await sleep(30);
        try {
          return await products.createMany!(actor, bodies);
        } finally {
          seen.inFlight -= 1;
        }
      },
    }));
    return { step: createChunkRunner(t.server.db, targets, SETTINGS, gauge), seen };
  }

  const importOf = async (category: string, rows: number, step: (worker: string) => Promise<boolean>) =>
    (await driveImport(t, await uploadProducts(t, category, rows, 'G'), step, 'load-test-worker')).job;

  /** A gauge whose verdict the test sets, counting the import's own transactions it is told of. */
  const gaugeSaying = (busy: boolean) => {
    const told = { own: 0, asked: 0 };
    const gauge: LoadGauge = {
      own: (n) => void (told.own += n),
      busy: async () => {
        told.asked += 1;
        return busy;
      },
    };
    return { gauge, told };
  };

  it('writes one chunk at a time while the database serves other work', async () => {
    const { gauge, told } = gaugeSaying(true);
    const { step, seen } = runnerWith(gauge);
    const job = await importOf('load-busy', 60, step);
    assert.deepEqual([job.status, job.rows_created], ['done', 60]);
    assert.equal(seen.most, 1, 'never two chunks in flight');
    assert.ok(told.asked >= 6 && told.own >= 12, `asked before each chunk, told of its own (${JSON.stringify(told)})`);
  });

  it('writes two chunks at once while the database serves little else', async () => {
    const { gauge, told } = gaugeSaying(false);
    const { step, seen } = runnerWith(gauge);
    const job = await importOf('load-quiet', 60, step);
    assert.deepEqual([job.status, job.rows_created], ['done', 60]);
    assert.equal(seen.most, 2, 'two chunks in flight at once');
    assert.ok(told.own >= 6, `the lanes' chunks told as its own (${JSON.stringify(told)})`);
  });

  it("reads the database's count of ended transactions, other sessions' included", async () => {
    const before = await countTransactions(t.server.db);
    // Another session's transactions; flushed to the statistics when it goes idle.
    await sql`select 1`.execute(t.server.db);
    for (let i = 0; i < 50; i += 1) await sql`select pg_stat_force_next_flush()`.execute(t.server.db);
    let grown = 0;
    for (let i = 0; i < 50 && grown < 50; i += 1) {
      grown = (await countTransactions(t.server.db)) - before;
      if (grown < 50) await sleep(100);
    }
    assert.ok(grown >= 50, `the count grew by ${grown}`);
  });
});
