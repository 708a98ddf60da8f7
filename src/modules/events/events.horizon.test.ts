import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { createDatabase, type Db } from '../../core/db/database.ts';
import { dialectNamed } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../../test/support/webhook-receiver.ts';
import { createEndpoint, FAST_WEBHOOKS } from '../../../test/support/webhooks.ts';
import { eventsAfter, feedEnd } from '../../../test/support/events.ts';

const postgres = dialectNamed('postgres');

/** How soon a new user's event must reach the feed and a webhook receiver, whatever else runs. */
const PROMPT_MS = 2000;

/** A transaction of its own on `url`, left open after `write` (so it has a transaction id) until `end` rolls it back. */
async function holdOpenWrite(url: string, write: (trx: Db) => Promise<void>): Promise<{ end(): Promise<void> }> {
  const db = createDatabase(url, { poolSize: 1 });
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let written!: () => void;
  const ready = new Promise<void>((resolve) => (written = resolve));
  const rolledBack = new Error('rolled back');
  const open = db
    .transaction()
    .execute(async (trx) => {
      await write(trx);
      written();
      await held;
      throw rolledBack;
    })
    .catch((error: unknown) => {
      if (error !== rolledBack) throw error;
    });
  await Promise.race([ready, open]);
  return {
    async end() {
      release();
      await open;
      await db.destroy();
    },
  };
}

/**
 * PostgreSQL: the feed's horizon is held back only by transactions that write events (feed-horizon.ts),
 * not by every transaction of the server as `pg_snapshot_xmin` was; and still never skips an event.
 */
describe('events: the horizon only event writers hold (postgres)', { skip: postgres.skip }, () => {
  let t: TestServer;
  let r: WebhookReceiver;
  before(async () => {
    r = await startWebhookReceiver();
    t = await startTestServer(postgres, FAST_WEBHOOKS);
    await createEndpoint(t, `${r.url}/users`, ['user.*']);
    // One delivery first: the fan-out is then woken by commits (webhooks.module.ts), and the first
    // request's costs are paid.
    await t.createUser();
    await r.waitFor('/users', 1, 10_000);
  });
  after(async () => {
    await t?.close();
    await r?.close();
  });

  /** Creates a user; how long its write took, and until its event was in the feed and at the receiver (ms). */
  async function newUserReaches(start: string | null): Promise<{ write: number; feed: number; webhook: number }> {
    const before = r.at('/users').length;
    const began = Date.now();
    const answer = await t.request('POST', '/api/users', {
      body: { name: 'Prompt', email: `prompt-${began}@example.com` },
    });
    assert.equal(answer.status, 201, answer.text);
    const write = Date.now() - began;
    const user = answer.body as { id: number };
    const arrived = r.waitFor('/users', before + 1, 10_000).then(() => Date.now() - began);
    let seen: Array<{ type: string; data: { id: number } }> = [];
    while (seen.length === 0 && Date.now() - began < 10_000) {
      const page = await t.request('GET', `/api/events?limit=100${start ? `&after=${start}` : ''}`, {
        token: t.adminToken,
      });
      seen = page.body.data;
      if (seen.length === 0) await sleep(10);
    }
    const feed = Date.now() - began;
    assert.deepEqual(
      seen.map((event) => [event.type, event.data.id]),
      [['user.created', user.id]],
    );
    const webhook = await arrived;
    assert.equal(r.at('/users').at(-1)!.event.data.id, user.id);
    return { write, feed, webhook };
  }

  for (const [where, write] of [
    [
      'in another database of the same server',
      async (trx: Db) => {
        await sql`create table held (x int)`.execute(trx);
        await sql`insert into held values (1)`.execute(trx);
      },
    ],
    [
      'in this database, on a table without events',
      async (trx: Db) => {
        await sql`insert into horizon_scratch values (1)`.execute(trx);
      },
    ],
  ] as const) {
    it(`lets a new user's event through at once while a write transaction is held open ${where}`, async (c) => {
      const scratch = where.startsWith('in another') ? await postgres.createDatabase() : undefined;
      if (!scratch) await sql`create table if not exists horizon_scratch (x int)`.execute(t.server.db);
      const held = await holdOpenWrite(scratch?.url ?? t.config.DATABASE_URL, write);
      try {
        const start = await feedEnd(t);
        const took = await newUserReaches(start);
        c.diagnostic(`write ${took.write} ms, in the feed ${took.feed} ms, at the receiver ${took.webhook} ms`);
        assert.ok(took.feed < PROMPT_MS && took.webhook < PROMPT_MS, JSON.stringify(took));
      } finally {
        await held.end();
        await scratch?.drop();
      }
    });
  }

  it('is held back by an event-writing transaction left open, and skips nothing once it commits', async () => {
    const { events } = t.server.app.services;
    const start = await feedEnd(t);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let recorded!: () => void;
    const written = new Promise<void>((resolve) => (recorded = resolve));
    const slow = events.transaction(t.server.db, async (trx) => {
      await events.record(trx, 'report.completed', { id: 4_000_001, synthetic: true });
      recorded();
      await held;
    });
    await written;
    const before = r.at('/users').length;
    let user: { id: number };
    try {
      user = await t.createUser();
      await sleep(500);
      const early = await t.request('GET', `/api/events?limit=100${start ? `&after=${start}` : ''}`, {
        token: t.adminToken,
      });
      assert.deepEqual(early.body.data, [], 'nothing after the open writer shows while it runs');
      assert.equal(r.at('/users').length, before, 'nor is delivered');
    } finally {
      release();
      await slow;
    }
    const seen = await eventsAfter(t, start, 2);
    assert.deepEqual(
      seen.map((event) => [event.type, event.data.id]),
      [
        ['report.completed', 4_000_001],
        ['user.created', user.id],
      ],
    );
    await r.waitFor('/users', before + 1, 10_000);
  });

  it("skips no event of writers committing while it reads (each writer's two locks matched by its backend)", async (c) => {
    const { events } = t.server.app.services;
    const writers = createDatabase(t.config.DATABASE_URL, { poolSize: 16 });
    const start = await events.feedHead();
    let writing = true;
    let written = 0;
    const seen = new Set<string>();
    try {
      const writing16 = Array.from({ length: 16 }, async () => {
        while (writing) {
          const id = 5_000_000 + written++;
          await events.transaction(writers, (trx) => events.record(trx, 'report.completed', { id, synthetic: true }));
        }
      });
      // A consumer's reads, back to back and in small pages, while the writers commit.
      let after = start;
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline) {
        const page = await events.readFeed({ after, limit: 20, filter: undefined });
        for (const item of page) seen.add(item.event.id);
        after = page.at(-1)?.position ?? after;
      }
      writing = false;
      await Promise.all(writing16);
      for (;;) {
        const page = await events.readFeed({ after, limit: 1000, filter: undefined });
        if (page.length === 0) break;
        for (const item of page) seen.add(item.event.id);
        after = page.at(-1)!.position;
      }
    } finally {
      writing = false;
      await writers.destroy();
    }
    const all = await events.readFeed({ after: start, limit: 1_000_000, filter: undefined });
    const skipped = all.filter((item) => !seen.has(item.event.id)).map((item) => item.position);
    c.diagnostic(`${all.length} events written by 16 writers, read in pages of 20 while they committed`);
    assert.ok(all.length > 1000, `${all.length} events`);
    assert.deepEqual(skipped, [], 'events the reads went past');
  });
});
