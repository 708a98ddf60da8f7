import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import {
  checkPageRules,
  checkSorts,
  checkProbes,
  checkRefusals,
  probesOf,
  refusalsOf,
} from '../../../test/support/list-rules.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';
import { USER_QUERY } from './users.query.ts';

type Item = Record<string, unknown>;

/**
 * DECISIONS §12 on the users list, from its grammar, as an administrator: every operator of every
 * field (email included) keeps what it means, alone and two by AND; each operator a field does not
 * take and each ill-typed value is a 422 naming its parameter; email is for administrators only (403
 * to anyone else, whichever operator or sort); and the count and cursor rules hold, under /api/v1
 * and /api/v2.
 */
for (const dialect of DIALECTS) {
  describe(`users list, every operator and refusal (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let token: string;

    const get = (path: string, as = t.adminToken) => t.request('GET', path, { token: as });
    const items = async (path: string) => {
      const res = await get(path);
      assert.equal(res.status, 200, `${path}: ${res.text}`);
      return res.body.data as Item[];
    };

    before(async () => {
      t = await startTestServer(dialect);
      token = (await t.createUser({ name: 'Reader', age: 40 })).token;
      const people: [string, number | null, string][] = [
        ['Ann', 18, 'active'],
        ['Bea', 30, 'inactive'],
        ['Cal', null, 'active'],
        ['Dan', 30, 'suspended'],
        ['Eve', 52, 'active'],
        ['Fox', null, 'inactive'],
      ];
      for (const [index, [name, age, status]] of people.entries()) {
        const created = await t.createUser({ name, age, status });
        if (index % 2 === 0) await t.request('POST', `/api/users/${created.id}/verify-email`, { token: t.adminToken });
      }
    });
    after(() => t?.close());

    for (const prefix of ['/api/v1', '/api/v2']) {
      it(`keeps what each operator of each field means, alone and two by AND (${prefix})`, async () => {
        const path = `${prefix}/users`;
        const whole = await items(`${path}?limit=100`);
        const keys = async (query: string) => (await items(`${path}?limit=100&${query}`)).map((i) => i.id);
        const probes = probesOf({ grammar: USER_QUERY, whole, key: (item) => item.id as number });
        await checkProbes(probes, keys);
      });

      it(`sorts by every field both ways and by two, nulls last, ties by id in the first field's direction (${prefix})`, async () => {
        const path = `${prefix}/users?limit=100`;
        await checkSorts({
          grammar: USER_QUERY,
          whole: await items(path),
          key: (item) => item.id as number,
          keysSortedBy: async (sort) => (await items(`${path}&sort=${sort}`)).map((i) => i.id as number),
        });
      });

      it(`answers 422 naming the parameter for each operator a field does not take and each ill-typed value (${prefix})`, async () => {
        const queries = [...refusalsOf(USER_QUERY), 'sort=password', 'sort=name,-name'];
        await checkRefusals(queries, (query) => get(`${prefix}/users?${query}`));
      });

      it(`refuses filtering or sorting by email to anyone but an administrator with 403 (${prefix})`, async () => {
        const whole = await items(`${prefix}/users?limit=100`);
        const email = encodeURIComponent(String(whole.at(-1)!.email));
        for (const query of [
          `email=${email}`,
          `email[eq]=${email}`,
          `email[ne]=${email}`,
          `email[in]=${email}`,
          'email[contains]=example',
          'email[gte]=a',
          'sort=email',
          'sort=name,-email',
        ]) {
          const refused = await get(`${prefix}/users?${query}`, token);
          assert.equal(refused.status, 403, `${query}: ${refused.text}`);
          assert.equal(refused.body.error.code, 'FORBIDDEN');
          assert.equal((await get(`${prefix}/users?${query}`)).status, 200, query);
        }
      });

      it(`leaves out the total with count=none, estimates exactly below the limit, ends with a null cursor and refuses another query's cursor (${prefix})`, async () => {
        await checkPageRules({
          get: (query) => get(`${prefix}/users?${query}`, token),
          filter: 'age[gte]=18',
          otherFilter: 'age[gte]=19',
          otherSort: 'sort=-age',
        });
      });
    }
  });
}
