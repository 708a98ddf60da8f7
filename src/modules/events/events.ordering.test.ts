import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';
import { eventsAfter, feedEnd, type SeenEvent } from '../../../test/support/events.ts';

/**
 * The feed's no-skip rule (DECISIONS §10, README.md): a reader following the feed with `after` sees
 * every committed event exactly once, even when transactions commit in another order than they
 * wrote their events, which PostgreSQL does routinely under concurrency.
 */
for (const dialect of DIALECTS) {
  describe(`events: the feed never skips nor repeats (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(dialect, {
        DATABASE_POOL_SIZE: '8',
        REPORT_WORKER: 'false',
        RATE_LIMIT_MAX: '10000000',
      });
    });
    after(() => t?.close());

    const page = async (cursor: string | null, limit: number) => {
      const answer = await t.request('GET', `/api/events?limit=${limit}${cursor ? `&after=${cursor}` : ''}`, {
        token: t.adminToken,
      });
      assert.equal(answer.status, 200, answer.text);
      return answer.body as { data: SeenEvent[]; nextCursor: string | null };
    };

    it(
      'does not pass an event whose transaction commits after a later-written one',
      { skip: dialect.name === 'sqlite' && 'SQLite has one writer: a transaction left open blocks the other write' },
      async () => {
        const start = await feedEnd(t);
        const { events } = t.server.app.services;
        let release!: () => void;
        const held = new Promise<void>((resolve) => (release = resolve));
        let recorded!: () => void;
        const written = new Promise<void>((resolve) => (recorded = resolve));
        // A transaction that writes its event first and commits last.
        const slow = events.transaction(t.server.db, async (trx) => {
          await events.record(trx, 'report.completed', { id: 1_000_001, synthetic: true });
          recorded();
          await held;
        });
        await written;
        const product = await t.request('POST', '/api/products', {
          token: t.adminToken,
          body: { name: 'Quick', category: 'x', price: 1, stock: 1 },
        });
        assert.equal(product.status, 201);
        // The quick write has committed; a reader now must not move past the slow one's place.
        const early = await page(start, 100);
        release();
        await slow;
        const seen = [...early.data];
        let cursor = early.nextCursor;
        const deadline = Date.now() + 10_000;
        while (seen.length < 2 && Date.now() < deadline) {
          const next = await page(cursor, 100);
          seen.push(...next.data);
          cursor = next.nextCursor;
          await sleep(20);
        }
        assert.deepEqual(
          seen.map((e) => e.type),
          ['report.completed', 'product.created'],
          "both events, in commit order of their writers' first writes",
        );
      },
    );

    it(
      "keeps a resource's events in commit order when the later writer got its transaction id first",
      { skip: dialect.name === 'sqlite' && 'SQLite has one writer: a transaction left open blocks the other write' },
      async () => {
        const product = (
          await t.request('POST', '/api/products', {
            token: t.adminToken,
            body: { name: 'Zero', category: 'x', price: 1, stock: 1 },
          })
        ).body;
        const start = await feedEnd(t);
        const { events } = t.server.app.services;
        let go!: () => void;
        const gate = new Promise<void>((resolve) => (go = resolve));
        let idTaken!: () => void;
        const taken = new Promise<void>((resolve) => (idTaken = resolve));
        // This transaction takes its id before the PATCH's, and writes the product's event after the PATCH committed.
        const late = events.transaction(t.server.db, async (trx) => {
          await sql`select pg_current_xact_id()`.execute(trx);
          idTaken();
          await gate;
          await events.record(trx, 'product.updated', { id: product.id, name: 'second' });
        });
        await taken;
        assert.equal(
          (await t.request('PATCH', `/api/products/${product.id}`, { token: t.adminToken, body: { name: 'first' } }))
            .status,
          200,
        );
        go();
        await late;
        const seen = await eventsAfter(t, start, 2);
        assert.deepEqual(
          seen.map((e) => e.data.name),
          ['first', 'second'],
        );
      },
    );

    it(
      "keeps each resource's events in commit order when a list of them is recorded by a writer that got its transaction id first",
      { skip: dialect.name === 'sqlite' && 'SQLite has one writer: a transaction left open blocks the other write' },
      async () => {
        const ids: number[] = [];
        for (const name of ['One', 'Two']) {
          const created = await t.request('POST', '/api/products', {
            token: t.adminToken,
            body: { name, category: 'x', price: 1, stock: 1 },
          });
          ids.push(created.body.id);
        }
        const start = await feedEnd(t);
        const { events } = t.server.app.services;
        let go!: () => void;
        const gate = new Promise<void>((resolve) => (go = resolve));
        let idTaken!: () => void;
        const taken = new Promise<void>((resolve) => (idTaken = resolve));
        // A list update (a write by filter's) takes its id before the PATCH's and records after the PATCH committed.
        const late = events.transaction(t.server.db, async (trx) => {
          await sql`select pg_current_xact_id()`.execute(trx);
          idTaken();
          await gate;
          await events.recordEach(
            trx,
            'product.updated',
            ids.map((id) => ({ id, name: 'second' })),
          );
        });
        await taken;
        const patched = await t.request('PATCH', `/api/products/${ids[1]}`, {
          token: t.adminToken,
          body: { name: 'first' },
        });
        assert.equal(patched.status, 200);
        go();
        await late;
        const seen = await eventsAfter(t, start, 3);
        assert.deepEqual(
          seen.filter((e) => e.data.id === ids[1]).map((e) => e.data.name),
          ['first', 'second'],
        );
        assert.deepEqual(
          seen.filter((e) => e.data.id === ids[0]).map((e) => e.data.name),
          ['second'],
        );
      },
    );

    it('gives a reader polling during many concurrent writes every committed event exactly once, each resource in commit order', async () => {
      const start = await feedEnd(t);
      const eventIds = async () =>
        new Set((await t.server.db.selectFrom('events').select('event_id').execute()).map((row) => row.event_id));
      const products = await Promise.all(
        [1, 2, 3].map(
          async (n) =>
            (
              await t.request('POST', '/api/products', {
                token: t.adminToken,
                body: { name: `P${n}`, category: 'race', price: n, stock: 1000 },
              })
            ).body.id as number,
        ),
      );
      const before = await eventIds();
      const { events } = t.server.app.services;
      const writers = [
        // HTTP writers: updates racing on three products, orders taking their stock.
        ...[0, 1, 2, 3].map(async (w) => {
          for (let i = 0; i < 15; i += 1) {
            const id = products[(w + i) % products.length]!;
            await t.request('PATCH', `/api/products/${id}`, {
              token: t.adminToken,
              body: { name: `P${id} by ${w}.${i}` },
            });
          }
        }),
        ...[0, 1].map(async () => {
          for (let i = 0; i < 10; i += 1) {
            await t.request('POST', '/api/orders', {
              token: t.adminToken,
              body: { items: [{ productId: products[i % products.length]!, quantity: 1 }] },
            });
          }
        }),
        // Direct writers whose transactions hold their event a random while before committing.
        ...[0, 1, 2].map(async (w) => {
          for (let i = 0; i < 15; i += 1) {
            await events.transaction(t.server.db, async (trx) => {
              await events.record(trx, 'report.completed', { id: 2_000_000 + w * 100 + i, synthetic: true });
              await sleep(Math.random() * 15);
            });
          }
        }),
      ];
      const expectedCount = 4 * 15 + 2 * 10 + 3 * 15;
      const progress = { writing: true, doneAt: 0 };
      const seen: SeenEvent[] = [];
      const reader = (async () => {
        // The reader starts after the products' creations: it follows from there.
        let cursor = start;
        const skipCreations = new Set<number>(products);
        for (;;) {
          const done = !progress.writing;
          const next = await page(cursor, 7);
          seen.push(
            ...next.data.filter((e) => !(e.type === 'product.created' && skipCreations.has(e.data.id as number))),
          );
          cursor = next.nextCursor;
          // Done once every event was seen, or (a skip) nothing more came for 15 s after the writers.
          if (done && next.data.length === 0 && (seen.length >= expectedCount || Date.now() - progress.doneAt > 15_000))
            return;
          await sleep(3);
        }
      })();
      await Promise.all(writers);
      progress.doneAt = Date.now();
      progress.writing = false;
      await reader;

      const ids = seen.map((e) => e.id);
      assert.equal(new Set(ids).size, ids.length, 'no event seen twice');
      const committed = [...(await eventIds())].filter((id) => !before.has(id));
      assert.equal(committed.length, expectedCount);
      const missed = committed.filter((id) => !ids.includes(id));
      assert.deepEqual(missed, [], `${missed.length} committed events were skipped by the reader`);
      for (const id of products) {
        const updates = seen.filter((e) => e.type === 'product.updated' && e.data.id === id);
        const stamps = updates.map((e) => e.data.updatedAt as string);
        assert.deepEqual(stamps, [...stamps].sort(), `product ${id}: its events in the order its changes committed`);
        const current = (await t.request('GET', `/api/v2/products/${id}`, { token: t.adminToken })).body;
        assert.equal(updates.at(-1)!.data.name, current.name, `product ${id}: its last event shows its final state`);
      }
    });
  });
}
