import { after, before } from 'node:test';
import { createDatabase, type Db } from '../../src/core/db/database.ts';
import type { TestDialect } from './dialects.ts';

export interface SuiteDatabase {
  /** The database's query layer; read it in tests and hooks (it exists once `before` ran). */
  readonly db: Db;
  readonly url: string;
}

/**
 * A fresh database of `dialect` for the enclosing suite, without a server: created (then `setUp` run
 * on it) before the suite's tests, closed and dropped after them. For suites of the storage layer;
 * HTTP suites use `startTestServer`.
 */
export function suiteDatabase(
  dialect: TestDialect,
  options: { poolSize: number; setUp?: (db: Db) => Promise<unknown> },
): SuiteDatabase {
  let opened: { db: Db; url: string; drop: () => Promise<void> } | undefined;
  before(async () => {
    const database = await dialect.createDatabase();
    opened = {
      db: createDatabase(database.url, { poolSize: options.poolSize }),
      url: database.url,
      drop: database.drop,
    };
    await options.setUp?.(opened.db);
  });
  after(async () => {
    await opened?.db.destroy();
    await opened?.drop();
  });
  const current = () => {
    if (!opened) throw new Error('suiteDatabase: read in a test or hook, after the suite’s before()');
    return opened;
  };
  return {
    get db() {
      return current().db;
    },
    get url() {
      return current().url;
    },
  };
}
