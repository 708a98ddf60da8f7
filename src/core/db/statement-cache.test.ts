import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { sql, type AliasedRawBuilder } from 'kysely';
import { rowByIdStatement, type TableName } from './by-id-statements.ts';
import { createDatabase, type Db } from './database.ts';
import { readRows } from './fast-read.ts';
import { shapedStatement, type BoundParams } from './statement-cache.ts';

interface Params extends Record<string, unknown> {
  a: string;
  b: number | undefined;
}

describe('shapedStatement', () => {
  const db = createDatabase('sqlite::memory:');
  after(() => db.destroy());

  function counted(maxShapes?: number) {
    let builds = 0;
    const statement = shapedStatement({
      maxShapes,
      build: (target: Db, shape: { upper: boolean }, p: BoundParams<Params>) => {
        builds += 1;
        const first = shape.upper ? sql<string>`upper(${p.a})` : sql<string>`${p.a}`;
        const columns: AliasedRawBuilder<unknown, string>[] = [
          first.as('first'),
          sql`${p.a}`.as('again'),
          sql`${1}`.as('constant'),
        ];
        if (p.b !== undefined) columns.push(sql`${p.b} * 2`.as('double'));
        return target.selectNoFrom(columns);
      },
    });
    const run = async (shape: { upper: boolean }, p: Params) =>
      (await db.executeQuery(statement(db, shape, p))).rows[0];
    return { run, builds: () => builds };
  }

  it('builds a shape once (and once more to confirm its key) and binds each call’s values in place, a value used twice and constants included', async () => {
    const { run, builds } = counted();
    assert.deepEqual(await run({ upper: false }, { a: 'x', b: 2 }), { first: 'x', again: 'x', constant: 1, double: 4 });
    assert.deepEqual(await run({ upper: false }, { a: 'y', b: 5 }), {
      first: 'y',
      again: 'y',
      constant: 1,
      double: 10,
    });
    assert.deepEqual(await run({ upper: false }, { a: 'z', b: 1 }), { first: 'z', again: 'z', constant: 1, double: 2 });
    assert.equal(builds(), 2);
  });

  it('tells shapes apart by the key and by which params are undefined', async () => {
    const { run, builds } = counted();
    assert.deepEqual(await run({ upper: true }, { a: 'x', b: 2 }), { first: 'X', again: 'x', constant: 1, double: 4 });
    assert.deepEqual(await run({ upper: true }, { a: 'z', b: undefined }), { first: 'Z', again: 'z', constant: 1 });
    assert.deepEqual(await run({ upper: false }, { a: 'w', b: undefined }), { first: 'w', again: 'w', constant: 1 });
    assert.equal(builds(), 3);
  });

  it('refuses a build that turns a param into SQL text or computes on it', () => {
    const spliced = shapedStatement({
      build: (target: Db, _shape: null, p: BoundParams<Params>) => target.selectNoFrom(sql.raw(`'${p.a}'`).as('a')),
    });
    assert.throws(() => spliced(db, null, { a: 'x', b: undefined }), /param "a" must be bound/);
    const computed = shapedStatement({
      build: (target: Db, _shape: null, p: BoundParams<Params>) => target.selectNoFrom(sql`${Number(p.b) + 1}`.as('b')),
    });
    assert.throws(() => computed(db, null, { a: 'x', b: 1 }), /param "b" must be bound/);
  });

  it('gives the build no value to read: comparing, computing on or passing on a param as a value does not compile', () => {
    const statement = shapedStatement({
      build: (target: Db, _shape: null, p: BoundParams<{ n: number; s: string; ids: number[] }>) => {
        // @ts-expect-error -- a param is a bound expression, not a number to compare
        if (p.n > 1) return target.selectNoFrom(sql`1`.as('n'));
        // @ts-expect-error -- nor a number to compute on
        const doubled: number = p.n * 2;
        // @ts-expect-error -- nor a string to pass where text is read
        const text: string = p.s;
        // An array param's length is part of the shape: that much may be read.
        const count: number = p.ids.length;
        return target.selectNoFrom([sql`${p.s}`.as('s'), sql`${count}`.as('count'), sql`${doubled}${text}`.as('x')]);
      },
    });
    assert.equal(typeof statement, 'function');
  });

  it('takes only plain data as a shape: a value of unknown type or a function does not compile', () => {
    shapedStatement({
      // @ts-expect-error -- `unknown` could be anything, a user's value included
      build: (target: Db, _shape: { value: unknown }) => target.selectNoFrom(sql`1`.as('one')),
    });
    shapedStatement({
      // @ts-expect-error -- a function is no shape
      build: (target: Db, _shape: () => string) => target.selectNoFrom(sql`1`.as('one')),
    });
  });

  it('past maxShapes builds the extra shapes on every call, with the same answers', async () => {
    const { run, builds } = counted(1);
    await run({ upper: false }, { a: 'x', b: 1 });
    assert.deepEqual(await run({ upper: true }, { a: 'q', b: 1 }), { first: 'Q', again: 'q', constant: 1, double: 2 });
    assert.deepEqual(await run({ upper: true }, { a: 'r', b: 3 }), { first: 'R', again: 'r', constant: 1, double: 6 });
    await run({ upper: false }, { a: 'y', b: 1 });
    assert.equal(builds(), 4);
  });

  it('binds an array param one parameter per element, each length a shape of its own', async () => {
    let builds = 0;
    const statement = shapedStatement({
      build: (target: Db, shape: string, p: BoundParams<{ ids: readonly number[]; tag: string }>) => {
        builds += 1;
        return target.selectNoFrom([
          sql<string>`${shape} || ':' || ${p.tag}`.as('tag'),
          sql<number>`${sql.join(p.ids, sql` * 10 + `)}`.as('digits'),
        ]);
      },
    });
    const run = async (shape: string, ids: number[], tag: string) =>
      (await db.executeQuery(statement(db, shape, { ids, tag }))).rows[0];
    assert.deepEqual(await run('a', [1, 2], 'x'), { tag: 'a:x', digits: 12 });
    assert.deepEqual(await run('a', [3], 'y'), { tag: 'a:y', digits: 3 });
    assert.deepEqual(await run('a', [4, 5, 6], 'z'), { tag: 'a:z', digits: 96 });
    assert.deepEqual(await run('a', [7, 8], 'w'), { tag: 'a:w', digits: 78 });
    assert.deepEqual(await run('b', [9, 10], 'v'), { tag: 'b:v', digits: 100 });
    assert.equal(builds, 5);
  });

  it('refuses a build that reads anything beside its shape and params, instead of running one statement with another’s values', async () => {
    // The key is the whole shape, so only something outside it can change the text under one key.
    let upper = false;
    const outside = shapedStatement({
      build: (target: Db, _shape: null, p: BoundParams<Params>) =>
        target.selectNoFrom((upper ? sql<string>`upper(${p.a})` : sql<string>`${p.a}`).as('a')),
    });
    assert.deepEqual((await db.executeQuery(outside(db, null, { a: 'x', b: undefined }))).rows, [{ a: 'x' }]);
    upper = true;
    assert.throws(() => outside(db, null, { a: 'y', b: undefined }), /two different statements/);
  });

  it('refuses a build that binds an array param as one value', () => {
    const whole = shapedStatement({
      build: (target: Db, _shape: null, p: BoundParams<{ ids: readonly number[] }>) =>
        target.selectNoFrom(sql`${p.ids}`.as('ids')),
    });
    assert.throws(() => whole(db, null, { ids: [1, 2] }), /one element per parameter/);
  });

  it('rowByIdStatement reads one row by id on every call, inside a transaction too, and nothing for an absent id', async () => {
    await sql`create table things (id integer primary key, name text not null)`.execute(db);
    await sql`insert into things values (1, 'one'), (2, 'two')`.execute(db);
    const byId = rowByIdStatement<{ id: number; name: string }>('things' as TableName);
    const findThing = async (target: Db, id: number) => (await readRows(target, byId(target, id)))[0];
    assert.deepEqual(await findThing(db, 2), { id: 2, name: 'two' });
    assert.deepEqual(await findThing(db, 1), { id: 1, name: 'one' });
    assert.equal(await findThing(db, 3), undefined);
    await db.transaction().execute(async (trx) => assert.deepEqual(await findThing(trx, 1), { id: 1, name: 'one' }));
    const nameById = rowByIdStatement<{ name: string }>('things' as TableName, ['name']);
    assert.deepEqual(await readRows(db, nameById(db, 2)), [{ name: 'two' }]);
  });
});
