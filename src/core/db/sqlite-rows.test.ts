import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rowBuilder } from './sqlite-rows.ts';

describe('rows of a SQLite statement', () => {
  it('are plain objects with the statement’s columns, in order', () => {
    const build = rowBuilder(['id', 'name', 'weird "name"']);
    const row = build([1, 'a', true]);
    assert.deepEqual(row, { id: 1, name: 'a', 'weird "name"': true });
    assert.deepEqual(Object.keys(row), ['id', 'name', 'weird "name"']);
    assert.equal(Object.getPrototypeOf(row), Object.prototype);
  });

  it('have every column, in order, for any number of columns', () => {
    for (let count = 0; count <= 20; count += 1) {
      const columns = Array.from({ length: count }, (_, i) => `c${i}`);
      const values = columns.map((_, i) => i * 10);
      const row = rowBuilder(columns)(values);
      assert.deepEqual(Object.keys(row), columns, `${count} columns`);
      assert.deepEqual(Object.values(row), values, `${count} columns`);
    }
  });

  it('keep the last of two columns of one name, and never take a column for the prototype', () => {
    assert.deepEqual(rowBuilder(['id', 'id'])([1, 2]), { id: 2 });
    const row = rowBuilder(['__proto__', 'id'])([{ polluted: true }, 1]);
    assert.equal((row as { polluted?: boolean }).polluted, undefined);
    assert.equal(({} as { polluted?: boolean }).polluted, undefined);
    assert.equal(Object.getPrototypeOf(row), Object.prototype);
    const wide = rowBuilder([...Array.from({ length: 17 }, (_, i) => `c${i}`), '__proto__'])([
      ...Array.from({ length: 17 }, () => 0),
      { polluted: true },
    ]);
    assert.equal(Object.getPrototypeOf(wide), Object.prototype);
  });
});
