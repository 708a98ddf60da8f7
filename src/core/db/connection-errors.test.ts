import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DatabaseSync } from 'node:sqlite';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDatabaseUnavailable } from './connection-errors.ts';

describe('what counts as the database being unavailable (a 503, not a 500)', () => {
  it("takes SQLite's busy in each of its extended codes, as node:sqlite reports them", () => {
    for (const errcode of [5, 261, 517, 773]) assert.equal(isDatabaseUnavailable({ errcode }), true, String(errcode));
    assert.equal(isDatabaseUnavailable({ errcode: 19 }), false, 'a constraint is not an outage');
    assert.equal(isDatabaseUnavailable({ errcode: 2067 }), false, 'nor a unique constraint (19 | 8 << 8)');
  });

  it('takes a real SQLite busy snapshot: a read transaction that tries to write after another writer committed', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cs-busy-'));
    try {
      const file = join(dir, 'db.sqlite');
      const a = new DatabaseSync(file);
      const b = new DatabaseSync(file);
      a.exec('pragma journal_mode = wal; create table t (x integer)');
      b.exec('begin; select * from t'); // b's snapshot
      a.exec('insert into t values (1)'); // a newer version than b's snapshot
      let thrown: unknown;
      try {
        b.exec('insert into t values (2)');
      } catch (error) {
        thrown = error;
      }
      b.exec('rollback');
      a.close();
      b.close();
      assert.equal((thrown as { errcode?: number }).errcode, 517, 'SQLITE_BUSY_SNAPSHOT');
      assert.equal(isDatabaseUnavailable(thrown), true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
