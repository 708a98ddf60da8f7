import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { generateOpenApiDocuments } from '../../contract-documents.ts';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

interface ListedUser {
  id: number;
  name: string;
  email: string | null;
  age: number | null;
  role: string;
  status: string;
  emailVerified: boolean;
  createdAt: string;
}

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** DECISIONS §12 on the users list: filters with operators, sorts, counts and cursors, REST v1 and v2. */
for (const dialect of DIALECTS) {
  describe(`users list queries (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let token: string;
    let everyone: ListedUser[];
    let middle: string;

    const list = async (query: string, as = t.adminToken, prefix = '/api') => {
      const res = await t.request('GET', `${prefix}/users?${query}`, { token: as });
      assert.equal(res.status, 200, `${query}: ${res.text}`);
      return res.body as { data: ListedUser[]; pagination: Record<string, unknown> };
    };
    const ids = async (query: string) => (await list(`limit=100&${query}`)).data.map((u) => u.id);
    const idsOf = (users: ListedUser[]) => users.map((u) => u.id);

    before(async () => {
      t = await startTestServer(dialect);
      token = (await t.createUser({ name: 'Lister', age: 33 })).token;
      const people: [string, number | null, string?][] = [
        ['Ann Archer', 18],
        ['anne Bolt', 30],
        ['Bob 100% Real', 30],
        ['Cy_Under', null],
        ['Dee', 45],
        ['Eve', null, 'inactive'],
        ['Fay', 61, 'suspended'],
        ['Gus 2000', 30],
        ['Kay Lo', 52],
      ];
      for (const [index, [name, age, status]] of people.entries()) {
        const created = await t.createUser({ name, age, ...(status ? { status } : {}) });
        if (index === 3) middle = created.user.createdAt as string;
        if (index % 3 === 0) await t.request('POST', `/api/users/${created.id}/verify-email`, { token: t.adminToken });
      }
      everyone = (await list('limit=100')).data;
    });
    after(() => t?.close());

    it('filters an integer field with each operator, nulls only through ne and null', async () => {
      const ages = (keep: (age: number | null) => boolean) => idsOf(everyone.filter((u) => keep(u.age)));
      assert.deepEqual(
        await ids('age=30'),
        ages((a) => a === 30),
      );
      assert.deepEqual(
        await ids('age[eq]=30'),
        ages((a) => a === 30),
      );
      assert.deepEqual(
        await ids('age[ne]=30'),
        ages((a) => a !== 30),
      );
      assert.deepEqual(
        await ids('age[gt]=30'),
        ages((a) => a !== null && a > 30),
      );
      assert.deepEqual(
        await ids('age[gte]=30'),
        ages((a) => a !== null && a >= 30),
      );
      assert.deepEqual(
        await ids('age[lt]=30'),
        ages((a) => a !== null && a < 30),
      );
      assert.deepEqual(
        await ids('age[lte]=30'),
        ages((a) => a !== null && a <= 30),
      );
      assert.deepEqual(
        await ids('age[in]=18, 45,61'),
        ages((a) => a === 18 || a === 45 || a === 61),
      );
      assert.deepEqual(
        await ids('age[null]=true'),
        ages((a) => a === null),
      );
      assert.deepEqual(
        await ids('age[null]=false'),
        ages((a) => a !== null),
      );
      assert.ok((await ids('age[null]=true')).length >= 2);
    });

    it('combines filters with AND, beside the seed’s role and status', async () => {
      assert.deepEqual(
        await ids('age[gte]=30&status=active&role=user'),
        idsOf(everyone.filter((u) => u.age !== null && u.age >= 30 && u.status === 'active' && u.role === 'user')),
      );
      assert.deepEqual(
        await ids('status[in]=inactive,suspended'),
        idsOf(everyone.filter((u) => u.status !== 'active')),
      );
      assert.deepEqual(await ids('role[ne]=user'), idsOf(everyone.filter((u) => u.role === 'admin')));
    });

    it('matches text by contains case-insensitively and literally (% and _ are not wildcards)', async () => {
      assert.deepEqual(
        await ids('name[contains]=ANN'),
        idsOf(everyone.filter((u) => u.name.toLowerCase().includes('ann'))),
      );
      assert.equal((await ids('name[contains]=ANN')).length, 2);
      // 'Gus 2000' and 'Kay Lo' would match if % and _ were wildcards.
      assert.deepEqual(await ids('name[contains]=0%25'), idsOf(everyone.filter((u) => u.name.includes('0%'))));
      assert.deepEqual(await ids('name[contains]=y_'), idsOf(everyone.filter((u) => u.name.includes('y_'))));
      assert.equal((await ids('name[contains]=y_')).length, 1);
      assert.equal((await ids('name[contains]=0%25')).length, 1);
      assert.deepEqual(await ids('name=Dee'), idsOf(everyone.filter((u) => u.name === 'Dee')));
      assert.deepEqual(
        await ids('name[gte]=E&name[lt]=G'),
        idsOf(everyone.filter((u) => u.name >= 'E' && u.name < 'G')),
      );
    });

    it('filters booleans and timestamps by their types', async () => {
      const verified = idsOf(everyone.filter((u) => u.emailVerified));
      assert.ok(verified.length >= 3);
      assert.deepEqual(await ids('emailVerified=true'), verified);
      assert.deepEqual(await ids('emailVerified[ne]=true'), idsOf(everyone.filter((u) => !u.emailVerified)));
      assert.deepEqual(await ids(`createdAt[gte]=${middle}`), idsOf(everyone.filter((u) => u.createdAt >= middle)));
      // Another way to write the same instant (a zone offset, no milliseconds) means the same.
      const shifted = new Date(Date.parse(middle) - (Date.parse(middle) % 1000))
        .toISOString()
        .replace('.000Z', '+00:00');
      assert.deepEqual(
        await ids(`createdAt[lt]=${encodeURIComponent(shifted)}`),
        idsOf(everyone.filter((u) => Date.parse(u.createdAt) < Date.parse(shifted))),
      );
    });

    it('lets only administrators filter or sort by email (403 otherwise)', async () => {
      const own = await t.request('GET', '/api/users?email[contains]=example', { token });
      assert.equal(own.status, 403);
      assert.equal(own.body.error.code, 'FORBIDDEN');
      const sorted = await t.request('GET', '/api/users?sort=-email', { token });
      assert.equal(sorted.status, 403);
      const first = everyone.find((u) => u.name === 'Dee')!;
      assert.deepEqual(await ids(`email=${encodeURIComponent(first.email!)}`), [first.id]);
    });

    it('answers 422 naming the parameter for unknown fields and operators and ill-typed values', async () => {
      const cases: [string, string][] = [
        ['age[gt]=abc', 'age[gt]'],
        ['age[contains]=1', 'age[contains]'],
        ['password[eq]=x', 'password[eq]'],
        ['age[like]=1', 'age[like]'],
        ['age[]=1', 'age[]'],
        ['age[in]=1,x', 'age[in]'],
        ['age[null]=maybe', 'age[null]'],
        ['name[null]=true', 'name[null]'],
        ['createdAt[gt]=yesterday', 'createdAt[gt]'],
        ['createdAt[gt]=2024-01-01', 'createdAt[gt]'],
        ['emailVerified=maybe', 'emailVerified'],
        ['status[in]=active,gone', 'status[in]'],
        ['role[gt]=admin', 'role[gt]'],
        ['name[contains]=', 'name[contains]'],
        [`age[in]=${Array.from({ length: 101 }, (_, i) => i).join(',')}`, 'age[in]'],
        ['sort=-password', 'sort'],
        ['sort=name,-name', 'sort'],
        ['count=some', 'count'],
      ];
      for (const [query, field] of cases) {
        const res = await t.request('GET', `/api/users?${query}`, { token });
        assert.equal(res.status, 422, query);
        assert.equal(res.body.error.code, 'VALIDATION_ERROR', query);
        assert.ok(
          res.body.error.details.some((d: { field: string }) => d.field === field),
          `${query} → ${JSON.stringify(res.body.error.details)}`,
        );
      }
    });

    it('sorts by a comma list, a leading - descending, nulls last, ties by id in the first key’s direction', async () => {
      const byAgeDescThenName = [...everyone].sort(
        (a, b) =>
          (a.age === null ? 1 : 0) - (b.age === null ? 1 : 0) ||
          (b.age ?? 0) - (a.age ?? 0) ||
          byText(a.name, b.name) ||
          b.id - a.id,
      );
      assert.deepEqual(await ids('sort=-age,name'), idsOf(byAgeDescThenName));
      const byStatusThenNameDesc = [...everyone].sort(
        (a, b) => byText(a.status, b.status) || byText(b.name, a.name) || a.id - b.id,
      );
      assert.deepEqual(await ids('sort=status,-name'), idsOf(byStatusThenNameDesc));
      // The seed's order applies to the fields written without a sign.
      assert.deepEqual(
        await ids('sort=name&order=desc'),
        idsOf([...everyone].sort((a, b) => byText(b.name, a.name) || b.id - a.id)),
      );
    });

    it('leaves out total and totalPages with count=none and still tells hasNext', async () => {
      const total = everyone.length;
      const first = await list('count=none&limit=4');
      assert.equal(first.pagination.total, undefined);
      assert.equal(first.pagination.totalPages, undefined);
      assert.equal(first.pagination.hasNext, true);
      assert.equal(first.data.length, 4);
      const last = await list(`count=none&limit=4&page=${Math.ceil(total / 4)}`);
      assert.equal(last.pagination.hasNext, false);
      assert.equal(last.pagination.nextCursor, null);
      const exactTail = await list(`count=none&limit=${total}`);
      assert.equal(exactTail.pagination.hasNext, false);
    });

    it('gives the exact total with count=estimated below COUNT_EXACT_LIMIT, and no totalEstimated', async () => {
      const estimated = await list('count=estimated&status=active&limit=2');
      const exact = await list('status=active&limit=2');
      assert.equal(estimated.pagination.total, exact.pagination.total);
      assert.equal(estimated.pagination.totalPages, exact.pagination.totalPages);
      assert.equal(estimated.pagination.totalEstimated, undefined);
      assert.equal(estimated.pagination.hasNext, exact.pagination.hasNext);
    });

    for (const prefix of ['/api/v1', '/api/v2']) {
      it(`walks every sort and filter to the end by cursor, each item once and in order (${prefix})`, async () => {
        const queries = [
          '',
          'order=desc',
          'sort=name',
          'sort=-age',
          'sort=age,-name',
          'sort=-emailVerified,-createdAt',
          'sort=status&age[ne]=30',
          'name[contains]=e&sort=-name',
          'count=none&sort=role,age',
        ];
        for (const query of queries) {
          const whole = (await list(`limit=100&${query}`, t.adminToken, prefix)).data.map((u) => u.id);
          const walked: number[] = [];
          let page = await list(`limit=3&${query}`, t.adminToken, prefix);
          let pages = 1;
          for (;;) {
            walked.push(...page.data.map((u) => u.id));
            assert.equal(page.pagination.page, pages, query);
            assert.equal(page.pagination.hasPrev, pages > 1, query);
            const next = page.pagination.nextCursor as string | null;
            assert.equal(next !== null, page.pagination.hasNext, query);
            if (next === null) break;
            page = await list(`limit=3&${query}&cursor=${next}`, t.adminToken, prefix);
            pages += 1;
          }
          assert.deepEqual(walked, whole, query);
          assert.equal(pages, Math.max(1, Math.ceil(whole.length / 3)), query);
        }
      });
    }

    it('refuses a cursor with other filters or sort, and one that is not a cursor (422 naming cursor)', async () => {
      const first = await list('limit=2&sort=name&age[gte]=18');
      const cursor = first.pagination.nextCursor as string;
      assert.ok(cursor);
      // The same filters in another order are the same query.
      assert.equal((await list(`limit=2&age[gte]=18&sort=name&cursor=${cursor}`)).data.length, 2);
      for (const query of [
        `limit=2&sort=name&age[gte]=19&cursor=${cursor}`,
        `limit=2&sort=-name&age[gte]=18&cursor=${cursor}`,
        `limit=2&sort=name&cursor=${cursor}`,
        `limit=2&sort=name&age[gte]=18&order=desc&cursor=${cursor}`,
        'cursor=not-a-cursor',
        `cursor=${Buffer.from(JSON.stringify({ f: 'x', v: ['DROP TABLE'], o: 0 })).toString('base64url')}`,
      ]) {
        const res = await t.request('GET', `/api/users?${query}`, { token });
        assert.equal(res.status, 422, query);
        assert.deepEqual(
          res.body.error.details.map((d: { field: string }) => d.field),
          ['cursor'],
        );
      }
      // A cursor whose values do not fit the keys' types is refused too.
      const decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as { v: unknown[] };
      decoded.v[0] = { sql: 'x' };
      const forged = Buffer.from(JSON.stringify(decoded)).toString('base64url');
      const res = await t.request('GET', `/api/users?limit=2&sort=name&age[gte]=18&cursor=${forged}`, { token });
      assert.equal(res.status, 422);
    });

    it('describes every filter, count and cursor in both OpenAPI documents', async () => {
      const documents = (await generateOpenApiDocuments()) as Map<1 | 2, { paths: Record<string, any> }>; // eslint-disable-line @typescript-eslint/no-explicit-any
      for (const version of [1, 2] as const) {
        const names = (documents.get(version)!.paths['/users'].get.parameters as { name: string }[]).map((p) => p.name);
        for (const name of [
          'age[gte]',
          'name[contains]',
          'emailVerified',
          'createdAt[lt]',
          'age[null]',
          'count',
          'cursor',
        ]) {
          assert.ok(names.includes(name), `v${version} lacks ${name}`);
        }
      }
    });
  });
}
