import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

interface ListedUser {
  id: number;
  name: string;
  age: number | null;
  status: string;
}
type Field = 'name' | 'age' | 'status';

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The order the users list must answer (DECISIONS §12, docs/QUERYING.md "Sorting"): the seed's
 * `order` is the direction of every field written without `-`; nulls last both ways; ties by id in the
 * first key's direction, or in `order`'s without a sort.
 */
function expectedOrder(users: readonly ListedUser[], sort: string | undefined, order: 'asc' | 'desc' | undefined) {
  const keys = (sort ? sort.split(',') : []).map((part) => ({
    field: part.replace(/^-/, '') as Field,
    desc: part.startsWith('-') || order === 'desc',
  }));
  const idDesc = keys[0] ? keys[0].desc : order === 'desc';
  return [...users]
    .sort((a, b) => {
      for (const { field, desc } of keys) {
        const [x, y] = [a[field], b[field]];
        if (x === null || y === null) {
          if (x !== y) return x === null ? 1 : -1;
          continue;
        }
        const compared = typeof x === 'number' ? x - (y as number) : byText(x, y as string);
        if (compared !== 0) return desc ? -compared : compared;
      }
      return idDesc ? b.id - a.id : a.id - b.id;
    })
    .map((u) => u.id);
}

/** The seed's users `sort` with `order=asc|desc`, under /api/v1 and /api/v2, against the order it must give. */
for (const dialect of DIALECTS) {
  describe(`users sort with order=asc|desc, v1 and v2 (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let everyone: ListedUser[];

    const ids = async (prefix: string, query: string) => {
      const res = await t.request('GET', `${prefix}/users?${query}`, { token: t.adminToken });
      assert.equal(res.status, 200, `${prefix} ${query}: ${res.text}`);
      return res.body as { data: ListedUser[]; pagination: Record<string, unknown> };
    };

    before(async () => {
      t = await startTestServer(dialect);
      // Equal names and equal ages, so that ties show which way the id breaks them; two unknown ages.
      const people: [string, number | null, string?][] = [
        ['Kim', 30],
        ['Abe', null],
        ['Kim', 18],
        ['Zed', 30],
        ['Mo', null, 'inactive'],
        ['Kim', 30, 'suspended'],
        ['Abe', 61],
        ['Lu', 18, 'inactive'],
      ];
      for (const [name, age, status] of people) await t.createUser({ name, age, ...(status ? { status } : {}) });
      everyone = (await ids('/api/v1', 'limit=100')).data;
      assert.equal(everyone.length, people.length + 1);
    });
    after(() => t?.close());

    const cases: [sort: string | undefined, order: 'asc' | 'desc' | undefined][] = [
      ['name', 'asc'],
      ['name', 'desc'],
      ['name', undefined],
      ['age', 'asc'],
      ['age', 'desc'],
      [undefined, 'asc'],
      [undefined, 'desc'],
      ['-name', 'asc'],
      ['-age,name', 'desc'],
      ['age,-name', 'desc'],
      ['status,name', 'desc'],
      ['name,-age', 'asc'],
    ];

    for (const prefix of ['/api/v1', '/api/v2']) {
      it(`answers sort with order=asc|desc in the order it names, nulls last, ties by id (${prefix})`, async () => {
        for (const [sort, order] of cases) {
          const query = [sort && `sort=${sort}`, order && `order=${order}`, 'limit=100'].filter(Boolean).join('&');
          const expected = expectedOrder(everyone, sort, order);
          assert.deepEqual(
            (await ids(prefix, query)).data.map((u) => u.id),
            expected,
            `${prefix} ${query}`,
          );
        }
      });

      it(`pages and walks by cursor in that order (${prefix})`, async () => {
        for (const [sort, order] of [
          ['name', 'desc'],
          ['age', 'desc'],
          ['-age,name', 'desc'],
        ] as const) {
          const expected = expectedOrder(everyone, sort, order);
          const query = `sort=${sort}&order=${order}&limit=3`;
          assert.deepEqual(
            (await ids(prefix, `${query}&page=2`)).data.map((u) => u.id),
            expected.slice(3, 6),
            query,
          );
          const walked: number[] = [];
          let page = await ids(prefix, query);
          for (;;) {
            walked.push(...page.data.map((u) => u.id));
            const next = page.pagination.nextCursor as string | null;
            if (next === null) break;
            page = await ids(prefix, `${query}&cursor=${next}`);
          }
          assert.deepEqual(walked, expected, query);
        }
      });

      it(`refuses an order other than asc and desc with 422 naming order (${prefix})`, async () => {
        const res = await t.request('GET', `${prefix}/users?sort=name&order=sideways`, { token: t.adminToken });
        assert.equal(res.status, 422, res.text);
        assert.ok(
          res.body.error.details.some((d: { field: string }) => d.field === 'order'),
          res.text,
        );
      });
    }
  });
}
