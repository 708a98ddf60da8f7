import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { observeQueries } from '../../core/db/database.ts';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

/**
 * The users list's exact totals come from maintained counters (`user_counts`) when it is unfiltered or
 * filtered by role and status only, and stay exact through every write that moves a user between them.
 */
for (const dialect of DIALECTS) {
  describe(`users list totals from counters (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(dialect);
    });
    after(() => t?.close());

    /** The statements one list request ran, and its total. */
    async function totalOf(query: string) {
      const statements: string[] = [];
      const stop = observeQueries(t.server.db, (text) => statements.push(text));
      const res = await t.request('GET', `/api/users?limit=1&${query}`, { token: t.adminToken });
      stop();
      assert.equal(res.status, 200, res.text);
      return { total: res.body.pagination.total as number, statements };
    }

    async function recount(where: { role?: string[]; status?: string[] }) {
      let query = t.server.db.selectFrom('users').select((eb) => eb.fn.countAll<number | string>().as('n'));
      if (where.role) query = query.where('role', 'in', where.role as ('user' | 'admin')[]);
      if (where.status) query = query.where('status', 'in', where.status as ('active' | 'inactive' | 'suspended')[]);
      return Number((await query.executeTakeFirstOrThrow()).n);
    }

    async function assertExact() {
      const cases: [string, { role?: string[]; status?: string[] }][] = [
        ['', {}],
        ['role=admin', { role: ['admin'] }],
        ['status=suspended', { status: ['suspended'] }],
        ['role=user&status=active', { role: ['user'], status: ['active'] }],
        ['status[in]=inactive,suspended', { status: ['inactive', 'suspended'] }],
        ['role[eq]=admin&status[in]=active,inactive', { role: ['admin'], status: ['active', 'inactive'] }],
      ];
      for (const [query, where] of cases) {
        const { total, statements } = await totalOf(query);
        assert.equal(total, await recount(where), query);
        assert.ok(
          statements.some((s) => s.includes('user_counts')) &&
            // Only the erased users' tombstones are counted (a partial index of them alone, DECISIONS §19).
            !statements.some((s) => /count\(\*\).* from "users"/.test(s) && !s.includes('"erased_at" is not null')),
          `${query}: ${statements.join('\n')}`,
        );
      }
    }

    it('answers the totals of role and status filters from the counters, exactly, through every kind of write', async () => {
      await assertExact();
      const made = [];
      for (let i = 0; i < 6; i += 1) made.push(await t.createUser({ status: i % 3 === 0 ? 'suspended' : 'active' }));
      await assertExact();
      await t.request('POST', `/api/users/${made[0]!.id}/actions/promote-to-admin`, { token: t.adminToken });
      await t.request('PATCH', `/api/users/${made[1]!.id}`, { token: t.adminToken, body: { status: 'inactive' } });
      await t.request('PATCH', `/api/users/${made[2]!.id}`, { token: t.adminToken, body: { name: 'Renamed' } });
      await assertExact();
      await t.request('DELETE', `/api/users/${made[3]!.id}`, { token: t.adminToken });
      // A statement writing many rows at once (the seed's bulk insert, an administrator's SQL).
      await sql`update users set status = 'suspended' where id in (${made[4]!.id}, ${made[5]!.id})`.execute(
        t.server.db,
      );
      await assertExact();
    });

    it('counts the rows for any other filter, and the totals agree', async () => {
      const { total, statements } = await totalOf('age[null]=true&role=user');
      assert.ok(!statements.some((s) => s.includes('user_counts')));
      const counted = await t.server.db
        .selectFrom('users')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('age', 'is', null)
        .where('role', '=', 'user')
        .executeTakeFirstOrThrow();
      assert.equal(total, Number(counted.n));
    });
  });
}
