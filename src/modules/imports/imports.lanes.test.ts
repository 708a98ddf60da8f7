import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';
import { driveImport, importTargets, STEPPED_IMPORTS, uploadProducts } from '../../../test/support/imports.ts';
import { createChunkRunner, type ImportsSettings } from './imports.chunks.ts';

const WORKER = 'lanes-test-worker';

/** Runs in each list create of products, before it writes: the test's window into a chunk in flight. */
type Hook = (call: number, bodies: readonly unknown[]) => Promise<void>;

for (const dialect of DIALECTS) {
  describe(`imports in lanes (${dialect.name})`, { skip: dialect.skip }, () => {
    const postgres = dialect.name === 'postgres';
    let t: TestServer;
    // The API role: no worker of the server's own claims the jobs this file's runner writes.
    before(async () => {
      t = await startTestServer(dialect, { PROCESS_ROLE: 'api', DATABASE_POOL_SIZE: '4' });
    });
    after(() => t?.close());

    /** The import runner on the server's database, its products' list create going through `hook` first. */
    function runnerWith(hook: Hook, settings: Partial<ImportsSettings> = {}) {
      const counts = { lists: 0, rows: 0 };
      const targets = importTargets(t, (products) => ({
        ...products,
        async createMany(actor, bodies) {
          counts.lists += 1;
          await hook(counts.lists, bodies);
          return products.createMany!(actor, bodies);
        },
        async create(actor, data) {
          counts.rows += 1;
          return products.create(actor, data);
        },
      }));
      return { step: createChunkRunner(t.server.db, targets, { ...STEPPED_IMPORTS, ...settings }), counts };
    }

    const upload = (category: string, rows: number) => uploadProducts(t, category, rows, 'L');
    const jobOf = (id: number) =>
      t.server.db.selectFrom('imports').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const written = async (category: string) =>
      (await t.server.db.selectFrom('products').select('id').where('category', '=', category).execute()).length;
    const drive = (id: number, step: (worker: string) => Promise<boolean>, worker = WORKER) =>
      driveImport(t, id, step, worker);

    it('writes two chunks of one job at once on PostgreSQL, each in its own transaction; one at a time on SQLite', async () => {
      const pids = new Set<number>();
      let inFlight = 0;
      let most = 0;
      let inTransactions = 0;
      let arrived!: () => void;
      const both = new Promise<void>((resolve) => (arrived = resolve));
      const { step } = runnerWith(async (call) => {
        inFlight += 1;
        most = Math.max(most, inFlight);
        if (postgres) {
          // On the lane's own connection (its transaction): which backend, and who else is in a transaction.
          const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(t.server.db);
          pids.add(rows[0]!.pid);
          if (inFlight === 2) {
            const { rows: open } = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
              where datname = current_database() and backend_xid is not null`.execute(t.server.db);
            inTransactions = open[0]!.n;
          }
        }
        if (inFlight === 2) arrived();
        // The first chunks wait for each other: a second lane, if there is one, comes in meanwhile.
        if (call <= 2) await Promise.race([both, sleep(postgres ? 20_000 : 300)]);
        inFlight -= 1;
      });
      const id = await upload('lanes-overlap', 60);
      const { job } = await drive(id, step);
      assert.deepEqual([job.status, job.rows_created, await written('lanes-overlap')], ['done', 60, 60]);
      if (postgres) {
        assert.equal(most, 2, 'two chunks of the job in flight at once');
        assert.equal(pids.size, 2, 'on two connections');
        assert.ok(inTransactions >= 2, `both in an open transaction (pg_stat_activity: ${inTransactions})`);
      } else assert.equal(most, 1, 'SQLite writes one chunk at a time');
    });

    it(
      'brings the table’s statistics up to date when a job wrote a tenth of it, in lanes or one at a time (PostgreSQL)',
      { skip: !postgres },
      async () => {
        const tuples = async () =>
          Number(
            (
              await sql<{ n: number }>`select reltuples::float8 as n from pg_class where relname = 'products'`.execute(
                t.server.db,
              )
            ).rows[0]!.n,
          );
        const count = async () =>
          Number(
            (
              await t.server.db
                .selectFrom('products')
                .select((eb) => eb.fn.countAll().as('n'))
                .executeTakeFirstOrThrow()
            ).n,
          );
        for (const lanes of [2, 1]) {
          const { step } = runnerWith(async () => {}, { lanes });
          const rows = Math.max(100, Math.ceil((await count()) / 5));
          const { job } = await drive(await upload(`lanes-analyzed-${lanes}`, rows), step);
          assert.equal(job.status, 'done');
          // A small table is read whole by ANALYZE: its row count exactly.
          assert.equal(await tuples(), await count(), `the planner counts the imported rows (lanes ${lanes})`);
        }
      },
    );

    it(
      'takes the events’ writer key before the job’s row in each chunk, in lanes or one at a time',
      { skip: !postgres },
      async () => {
        // The lock on the job's row gives the transaction its id; the feed's horizon must see it as a writer.
        for (const lanes of [2, 1]) {
          const held: boolean[] = [];
          const { step } = runnerWith(
            async () => {
              const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_locks
              where pid = pg_backend_pid() and locktype = 'advisory' and classid = 5194328 and objid = 1`.execute(
                t.server.db,
              );
              held.push(rows[0]!.n > 0);
            },
            { lanes },
          );
          const id = await upload(`lanes-writer-key-${lanes}`, 40);
          const { job } = await drive(id, step);
          assert.equal(job.status, 'done');
          assert.deepEqual(held, [true, true, true, true], `the key held before the chunk writes (lanes: ${lanes})`);
        }
      },
    );

    it(
      'has the products’ counters and search words written in key order, so lanes sharing them do not deadlock',
      { skip: !postgres },
      async () => {
        const definition = async (name: string) =>
          (
            await sql<{ text: string }>`select pg_get_functiondef(${name}::regproc) as text`.execute(t.server.db)
          ).rows[0]!.text.replace(/\s+/g, ' ');
        assert.match(
          await definition('products_count_apply'),
          /having sum\(delta\) <> 0 order by category, in_stock on conflict/,
        );
        assert.match(await definition('product_search_words_add'), /order by 1 on conflict do nothing/);
      },
    );

    it('commits no chunk once a cancel has answered: the cancel waits for the chunks in flight', async () => {
      let open!: () => void;
      const opened = new Promise<void>((resolve) => (open = resolve));
      let reached!: () => void;
      const blocked = new Promise<void>((resolve) => (reached = resolve));
      // PostgreSQL: the first chunk of each lane held open until the cancel is seen waiting for them. SQLite
      // (one writer, one chunk at a time): the cancel lands between the chunks of a longer job.
      const { step } = runnerWith(async (call) => {
        reached();
        if (postgres && call <= 2) await opened;
      });
      const rows = postgres ? 100 : 1000;
      const id = await upload('lanes-cancel', rows);
      const driving = drive(id, step);
      await blocked;
      const cancel = t.request('POST', `/api/v2/imports/${id}/cancel`, { token: t.adminToken });
      // The cancel's UPDATE waits for the lanes' shared lock on the job (PostgreSQL).
      let waited = !postgres;
      for (let i = 0; i < 200 && !waited; i += 1) {
        const { rows: waiting } = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock'`.execute(t.server.db);
        waited = waiting[0]!.n > 0;
        if (!waited) await sleep(25);
      }
      open();
      const answer = await cancel;
      assert.ok(waited, 'the cancel waits for the chunks in flight');
      assert.equal(answer.status, 202, answer.text);
      const atAnswer = await written('lanes-cancel');
      const { job } = await driving;
      assert.equal(job.status, 'cancelled');
      assert.equal(await written('lanes-cancel'), atAnswer, 'no chunk committed after the cancel answered');
      // PostgreSQL: the two chunks in flight when the cancel came, and no chunk begun after it (those queue
      // behind the cancel, then find the job cancelled).
      if (postgres) assert.equal(atAnswer, 20, 'the chunks in flight went in, and no later one');
      else assert.ok(atAnswer > 0 && atAnswer < rows, `the chunks in flight went in (${atAnswer})`);
      assert.equal(answer.body.rows.created, atAnswer, 'the answer counts them');
      assert.equal(job.rows_created, atAnswer);
    });

    it('tries a chunk aborted by a deadlock again as the same list: no failed attempt, never row by row', async () => {
      const { step, counts } = runnerWith(async (call) => {
        // More aborts than one transaction's own retries, in each lane.
        if (call <= 10) throw Object.assign(new Error('deadlock detected'), { code: '40P01' });
      });
      const id = await upload('lanes-deadlock', 40);
      const { job, attempts } = await drive(id, step);
      assert.deepEqual([job.status, job.rows_created, await written('lanes-deadlock')], ['done', 40, 40]);
      assert.equal(attempts, 0, 'no failed attempt counted');
      assert.equal(counts.rows, 0, 'no row written alone');
      assert.equal(counts.lists, 10 + 4, 'each chunk a list create');
    });

    it(
      'reads exact counts while the lanes’ done chunks are not folded into the job yet',
      { skip: !postgres },
      async () => {
        let open!: () => void;
        const opened = new Promise<void>((resolve) => (open = resolve));
        let waiting = 0;
        let bothBlocked!: () => void;
        const blocked = new Promise<void>((resolve) => (bothBlocked = resolve));
        const { step } = runnerWith(async (call) => {
          if (call <= 2) return;
          if ((waiting += 1) === 2) bothBlocked();
          await opened;
        });
        const id = await upload('lanes-progress', 100);
        const driving = drive(id, step);
        // Each lane committed its first chunk and waits in its second.
        await blocked;
        const read = await t.request('GET', `/api/v2/imports/${id}`, { token: t.adminToken });
        const stored = await jobOf(id);
        open();
        assert.equal(read.status, 200, read.text);
        assert.equal(stored.rows_created, 0, 'the done chunks are not folded yet');
        assert.deepEqual(read.body.rows, { read: 100, created: 20, updated: 0, failed: 0 });
        const { job } = await driving;
        assert.deepEqual([job.status, job.rows_created, job.position], ['done', 100, 101]);
      },
    );

    // Chunks of 7 rows: the lanes cut the gap's end short of the done chunk and skip it. Of 15: the first,
    // written row by row after the failure, stops short of it.
    for (const chunkRows of [7, 15])
      it(
        `resumes a job with a done chunk beyond a gap: its lines skipped, the gap filled, every row once (chunks of ${chunkRows})`,
        { skip: !postgres },
        async () => {
          const category = `lanes-resume-${chunkRows}`;
          // A first worker's step: the chunk of lines 2-11 throws once the lane beside it writes lines 12-21,
          // which commits.
          let besideStarted!: () => void;
          const beside = new Promise<void>((resolve) => (besideStarted = resolve));
          const first = runnerWith(async (_, bodies) => {
            const name = (bodies[0] as { name: string }).name;
            if (name === 'L 10') besideStarted();
            if (name !== 'L 0') return;
            await beside;
            throw new Error('a chunk that throws');
          });
          const id = await upload(category, 100);
          await first.step('first-worker').catch(() => undefined);
          const chunks = await t.server.db
            .selectFrom('import_chunks')
            .selectAll()
            .where('import_id', '=', id)
            .execute();
          assert.deepEqual(
            chunks.map((chunk) => [chunk.first_line, chunk.last_line]),
            [[12, 21]],
            'a done chunk beyond a gap, not folded',
          );
          assert.equal((await jobOf(id)).position, 0);
          // Another worker, once the failed chunk's wait is over, with chunks of another size (cut elsewhere).
          const past = new Date(Date.now() - 1000).toISOString();
          await t.server.db.updateTable('imports').set({ locked_until: past }).where('id', '=', id).execute();
          const second = runnerWith(async () => {}, { chunkRows });
          const { job } = await drive(id, second.step, 'second-worker');
          assert.deepEqual([job.status, job.rows_created, job.rows_failed, job.position], ['done', 100, 0, 101]);
          const names = await t.server.db
            .selectFrom('products')
            .select(['name', (eb) => eb.fn.countAll<number>().as('times')])
            .where('category', '=', category)
            .groupBy('name')
            .execute();
          assert.equal(names.length, 100, 'every row written');
          assert.deepEqual(
            names.filter((row) => Number(row.times) !== 1),
            [],
            'no row written twice',
          );
        },
      );
  });
}
