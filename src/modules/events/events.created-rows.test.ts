import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { eventsAfter, feedEnd } from '../../../test/support/events.ts';
import { statementsOf } from '../../../test/support/statements-of.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

for (const dialect of DIALECTS) {
  describe(`events: a created row and its event (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let author: Awaited<ReturnType<TestServer['createUser']>>;
    let postId = 0;
    let created = 0;
    before(async () => {
      t = await startTestServer(dialect);
      author = await t.createUser();
      postId = (
        await t.request('POST', `/api/users/${author.id}/posts`, {
          token: author.token,
          body: { title: 'T', content: 'C' },
        })
      ).body.id;
    });
    after(() => t?.close());

    /** The four writes that create a row: the row's table and the request. */
    const creations = () =>
      [
        [
          'users',
          () =>
            t.request('POST', '/api/users', {
              body: { name: 'New', email: `new-${(created += 1)}-${Date.now()}@x.io` },
            }),
        ],
        [
          'posts',
          () =>
            t.request('POST', `/api/users/${author.id}/posts`, {
              token: author.token,
              body: { title: 'T', content: 'C' },
            }),
        ],
        [
          'comments',
          () => t.request('POST', `/api/posts/${postId}/comments`, { token: author.token, body: { text: 'Hi' } }),
        ],
        [
          'products',
          () =>
            t.request('POST', '/api/products', {
              token: t.adminToken,
              body: { name: 'P', category: 'c', price: 1, stock: 1 },
            }),
        ],
      ] as const;

    it(
      dialect.name === 'postgres'
        ? 'are one statement, no transaction and no read of the parent first, with ids reserved a block at a time'
        : 'are written in one transaction, with no read of the parent first',
      async () => {
        for (const [table, create] of creations()) {
          if (dialect.name === 'sqlite') {
            const { result, statements } = await statementsOf(t.server.db, create);
            assert.equal(result.status, 201, result.text);
            assert.deepEqual(
              statements.map((s) => s.split(' (')[0]),
              // The revision (DECISIONS §19) in the same transaction, after its event.
              [
                'begin immediate',
                `insert into "${table}"`,
                'insert into "events"',
                'insert into "revisions"',
                'commit',
              ],
            );
            continue;
          }
          // More creations than a block of ids (16): each is its one statement, and a block is taken
          // before the first and once more when it runs out (row-ids.ts).
          let reservations = 0;
          for (let i = 0; i < 20; i += 1) {
            const { result, statements } = await statementsOf(t.server.db, create);
            assert.equal(result.status, 201, result.text);
            const last = statements.at(-1)!;
            // The writer key first (feed-horizon.ts), then the event and the row, both selected from it.
            assert.match(
              last,
              /^with "writer_key" as \(select pg_advisory_xact_lock_shared\(.*\), "created_event" as \(insert into "events" /,
            );
            assert.ok(last.endsWith('from "writer_key" returning *'), last);
            assert.ok(last.includes(`insert into "${table}" `), last);
            // The revision (DECISIONS §19) is one more step of the same statement.
            assert.ok(last.includes('"also_written" as (insert into "revisions" '), last);
            for (const other of statements.slice(0, -1)) {
              assert.match(other, /^\s*select nextval\(pg_get_serial_sequence\(/, statements.join('\n'));
              reservations += 1;
            }
          }
          assert.ok(reservations >= 1 && reservations <= 2, `${table}: ${reservations} reservations for 20 rows`);
        }
      },
    );

    it('leave no event and no revision when the write fails (a taken email, an unknown author or post)', async () => {
      const start = await feedEnd(t);
      const revisionsBefore = await t.server.db.selectFrom('revisions').select('id').execute();
      const refused = [
        await t.request('POST', '/api/users', { body: { name: 'Dup', email: author.user.email } }),
        await t.request('POST', '/api/users/999999/posts', { token: t.adminToken, body: { title: 'T', content: 'C' } }),
        await t.request('POST', '/api/posts/999999/comments', { token: author.token, body: { text: 'Hi' } }),
      ];
      assert.deepEqual(
        refused.map((answer) => [answer.status, answer.body.error?.code]),
        [
          [409, 'CONFLICT'],
          [404, 'NOT_FOUND'],
          [404, 'NOT_FOUND'],
        ],
      );
      assert.match(refused[1]!.body.error.message, /User 999999/);
      assert.match(refused[2]!.body.error.message, /Post 999999/);
      // A write that succeeds next is the only event after the start.
      assert.equal((await t.server.db.selectFrom('revisions').select('id').execute()).length, revisionsBefore.length);
      const next = await t.createUser();
      const seen = await eventsAfter(t, start, 1);
      assert.deepEqual(
        seen.map((event) => [event.type, event.data.id]),
        [['user.created', next.id]],
      );
    });

    it("tell the outbox's consumers once the statement has committed (the webhook fan-out and NATS wake on it)", async () => {
      let woken = 0;
      const stopWaking = t.server.app.services.events.afterCommit(() => (woken += 1));
      try {
        const email = `told-${Date.now()}@example.com`;
        const created = await t.request('POST', '/api/users', { body: { name: 'Told', email } });
        assert.equal(created.status, 201);
        assert.equal(woken, 1, `one signal for one user created (got ${woken})`);
        const stored = await t.server.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst();
        assert.ok(stored, 'the row was committed when the consumers were told');
      } finally {
        stopWaking();
      }
    });
  });
}
