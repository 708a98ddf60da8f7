import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import type { ChildServer } from '../../../test/support/child-server.ts';
import { dialectNamed } from '../../../test/support/dialects.ts';
import { QUIET_ENV } from '../../../test/support/orders.ts';
import {
  call,
  openDatabase,
  startProcess,
  tokenFor,
  type Answer,
} from '../../../test/reliability/harness.test-support.ts';

/**
 * List creates (a batch's run of creates: one reservation of ids, then the rows, their events and their
 * revisions in a statement each) from two server processes on one SQLite file at once. The ids are
 * reserved from `sqlite_sequence` and the table inside the batch's `begin immediate` transaction: the
 * database, not either process, decides who goes first, and the other's reservation comes after.
 */

const sqlite = dialectNamed('sqlite');
const BATCHES_PER_PROCESS = 8;
const CREATES_PER_BATCH = 50;
const SINGLES = 10;

interface Body {
  name: string;
  category: string;
  price: number;
  stock: number;
  sku: string;
}

const bodyOf = (tag: string, n: number): Body => ({
  name: `Race ${tag}`,
  category: 'race',
  price: 1 + (n % 500) / 4,
  stock: n % 97,
  sku: `RACE-${tag}`,
});

/** A request's answer must be a success: its status and its body otherwise. */
function assertOk(what: string, answer: Answer): void {
  assert.ok(
    answer.status >= 200 && answer.status < 300,
    `${what}: ${answer.status} ${answer.error ?? JSON.stringify(answer.body)}`,
  );
}

/** Every `product.created` event of the feed, as the ids of the products they announce. */
async function createdEvents(base: string, token: string): Promise<number[]> {
  const ids: number[] = [];
  let after = '';
  for (;;) {
    const page = await call(base, 'GET', `/api/events?types=product.created&limit=1000${after}`, { token });
    assertOk('the feed', page);
    const data = page.body.data as { data: { id: number } }[];
    ids.push(...data.map((event) => event.data.id));
    if (data.length === 0) return ids;
    after = `&after=${encodeURIComponent(page.body.nextCursor as string)}`;
  }
}

describe('list creates from two server processes on one SQLite file', { skip: sqlite.skip }, () => {
  it(
    'gives every product of concurrent batches and single creates its own new id, with its body and one event, and reuses no id',
    { timeout: 120_000 },
    async (t) => {
      const database = await sqlite.createDatabase();
      const db = openDatabase(database.url);
      const servers: ChildServer[] = [];
      try {
        const env = { ...QUIET_ENV, DATABASE_URL: database.url };
        // One after the other: the first migrates the new file, the second finds it ready.
        servers.push(await startProcess(env));
        servers.push(await startProcess(env));
        const bases = servers.map((server) => server.url);
        const token = await tokenFor(1, 'admin');
        const batch = (base: string, bodies: Body[]) =>
          call(base, 'POST', '/api/v2/products/batch', {
            token,
            body: { operations: bodies.map((data) => ({ op: 'create', data })) },
          });

        // Before the race: three products, then the newest deleted (its id, the highest given, is its own
        // to restore: no new row may take it) and the oldest deleted too (restored during the race).
        const seeded = await batch(
          bases[0]!,
          [0, 1, 2].map((n) => bodyOf(`seed-${n}`, n)),
        );
        assertOk('the seed', seeded);
        const [restored, removed, highest] = (seeded.body.results as { id: number }[]).map((r) => r.id) as [
          number,
          number,
          number,
        ];
        for (const id of [highest, restored])
          assertOk(`delete ${id}`, await call(bases[1]!, 'DELETE', `/api/v2/products/${id}`, { token }));

        // The race: every batch of both processes (sent to each in turn) and the single creates at once, with
        // a restore and a delete among them.
        const sent = new Map<number, Body>();
        const writer = new Map<number, number>();
        const given = (id: number, body: Body, p: number) => {
          assert.ok(!sent.has(id), `id ${id} given twice`);
          sent.set(id, body);
          writer.set(id, p);
        };
        const batches = Array.from({ length: BATCHES_PER_PROCESS * 2 }, (_, n) => {
          const [b, p] = [Math.floor(n / 2), n % 2];
          const bodies = Array.from({ length: CREATES_PER_BATCH }, (_, i) =>
            bodyOf(`p${p}-b${b}-${i}`, n * CREATES_PER_BATCH + i),
          );
          return batch(bases[p]!, bodies).then((answer) => {
            assertOk(`batch ${b} on process ${p}`, answer);
            const results = answer.body.results as { status: number; id: number }[];
            assert.equal(results.length, bodies.length);
            results.forEach((result, i) => {
              assert.equal(result.status, 201, `batch ${b} on process ${p}, operation ${i}`);
              given(result.id, bodies[i]!, p);
            });
          });
        });
        const singles = Array.from({ length: SINGLES }, (_, i) => {
          const body = bodyOf(`single-${i}`, 10_000 + i);
          return call(bases[i % 2]!, 'POST', '/api/v2/products', { token, body }).then((answer) => {
            assertOk(`single create ${i}`, answer);
            given(answer.body.id as number, body, i % 2);
          });
        });
        const others = [
          call(bases[1]!, 'POST', `/api/v2/products/${restored}/restore`, { token }).then((answer) =>
            assertOk(`restore ${restored}`, answer),
          ),
          call(bases[0]!, 'DELETE', `/api/v2/products/${removed}`, { token }).then((answer) =>
            assertOk(`delete ${removed}`, answer),
          ),
        ];
        await Promise.all([...batches, ...singles, ...others]);
        // How often the writing process changed along the ids: a diagnostic, the turns are the scheduler's.
        const order = [...writer].sort(([a], [b]) => a - b).map(([, p]) => p);
        const turns = order.filter((p, i) => i > 0 && p !== order[i - 1]).length;
        t.diagnostic(`${sent.size} creates; the writing process changed ${turns} times along the ids`);

        const created = BATCHES_PER_PROCESS * 2 * CREATES_PER_BATCH + SINGLES;
        assert.equal(sent.size, created, 'a distinct id for every create');
        for (const id of sent.keys())
          assert.ok(id > highest, `new id ${id} after the highest given before, ${highest}`);

        // Each one reads back, through either process, as it was created.
        const ids = [...sent.keys()];
        for (let from = 0; from < ids.length; from += 50) {
          await Promise.all(
            ids.slice(from, from + 50).map(async (id, i) => {
              const read = await call(bases[i % 2]!, 'GET', `/api/v2/products/${id}`, { token });
              assertOk(`read ${id}`, read);
              const { name, category, price, stock, sku } = read.body as Body;
              assert.deepEqual({ name, category, price, stock, sku }, sent.get(id), `product ${id}`);
            }),
          );
        }
        const live = await db.selectFrom('products').select('id').execute();
        assert.equal(live.length, created + 1, 'the products created, and the one restored');
        assert.deepEqual(
          live.map((row) => Number(row.id)).filter((id) => !sent.has(id)),
          [restored],
        );
        for (const [id, status] of [
          [restored, 200],
          [removed, 404],
          [highest, 404],
        ] as const)
          assert.equal((await call(bases[0]!, 'GET', `/api/v2/products/${id}`, { token })).status, status, `${id}`);

        // One `product.created` each (and one for each seeded product).
        const events = await createdEvents(bases[1]!, token);
        const perId = new Map<number, number>();
        for (const id of events) perId.set(id, (perId.get(id) ?? 0) + 1);
        assert.deepEqual(
          [...perId].filter(([, n]) => n !== 1),
          [],
          'no product announced twice',
        );
        assert.deepEqual(
          [...perId.keys()].sort((a, b) => a - b),
          [restored, removed, highest, ...ids].sort((a, b) => a - b),
        );

        // AUTOINCREMENT's record is past every id given.
        const { rows } = await sql<{ seq: number }>`select seq from sqlite_sequence where name = 'products'`.execute(
          db,
        );
        const maxId = Math.max(...ids, highest);
        assert.ok(Number(rows[0]?.seq) >= maxId, `sqlite_sequence ${rows[0]?.seq} at or past ${maxId}`);

        for (const server of servers) server.process.kill('SIGTERM');
        assert.deepEqual(await Promise.all(servers.map((server) => server.exited)), [0, 0]);
      } finally {
        for (const server of servers) if (server.process.exitCode === null) server.process.kill('SIGKILL');
        await db.destroy();
        await database.drop();
      }
    },
  );
});
