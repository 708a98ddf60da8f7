import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * The databases every storage and HTTP suite runs on. PostgreSQL suites each get a fresh database
 * that is dropped afterwards. When PostgreSQL is unreachable the suites are skipped, except in CI
 * (`CI=true`), where that is a failure. `TEST_DIALECTS=sqlite` narrows a local run.
 */
export interface TestDialect {
  name: 'sqlite' | 'postgres';
  /** A reason to skip, or false. */
  skip: string | false;
  createDatabase(): Promise<{ url: string; drop(): Promise<void> }>;
}

const PG_ADMIN_URL = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const wanted = (process.env.TEST_DIALECTS ?? 'sqlite,postgres').split(',');

/**
 * A busy machine can be slow to accept a connection, so a slow answer is retried; a refused one
 * (nothing listening) is final at once.
 */
async function postgresReachable(): Promise<boolean> {
  for (let attempt = 1; attempt <= 5; attempt += 1) {
    const client = new pg.Client({ connectionString: PG_ADMIN_URL, connectionTimeoutMillis: 10_000 });
    try {
      await client.connect();
      return true;
    } catch (error) {
      if ((error as { code?: string }).code === 'ECONNREFUSED') return false;
      await new Promise((resolve) => setTimeout(resolve, 500 * attempt));
    } finally {
      await client.end().catch(() => {});
    }
  }
  return false;
}

async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_ADMIN_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

const pgUp = wanted.includes('postgres') ? await postgresReachable() : false;
if (wanted.includes('postgres') && !pgUp && process.env.CI === 'true') {
  throw new Error(`PostgreSQL is not reachable at ${PG_ADMIN_URL}; CI requires it`);
}

const sqlite: TestDialect = {
  name: 'sqlite',
  skip: false,
  async createDatabase() {
    const { mkdtemp, rm } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const dir = await mkdtemp(`${tmpdir()}/content-service-test-`);
    return { url: `sqlite:${dir}/test.db`, drop: () => rm(dir, { recursive: true, force: true }) };
  },
};

const postgres: TestDialect = {
  name: 'postgres',
  skip: pgUp ? false : `PostgreSQL not reachable at ${PG_ADMIN_URL}`,
  async createDatabase() {
    const name = `cs_test_${process.pid}_${randomBytes(4).toString('hex')}`;
    await adminQuery(`CREATE DATABASE ${name}`);
    const url = new URL(PG_ADMIN_URL);
    url.pathname = `/${name}`;
    return { url: url.toString(), drop: () => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
  },
};

export const DIALECTS: TestDialect[] = [sqlite, postgres].filter((d) => wanted.includes(d.name));

/**
 * For suites of what no database decides (the HTTP layer's body limit, pages in a browser): the first
 * dialect alone (SQLite, the embedded default, unless TEST_DIALECTS names another). They behave the same
 * over either database, which the data suites check on both; run twice they took about a minute of the suite.
 */
export const DATABASE_INDEPENDENT: TestDialect[] = DIALECTS.slice(0, 1);

/**
 * The dialect of that name, or, when TEST_DIALECTS leaves it out, one whose suites are skipped (a suite of
 * one database keeps `{ skip: dialect.skip }` working however a local run is narrowed).
 */
export function dialectNamed(name: 'sqlite' | 'postgres'): TestDialect {
  return (
    DIALECTS.find((dialect) => dialect.name === name) ?? {
      name,
      skip: `${name} is not in TEST_DIALECTS`,
      createDatabase: () => Promise.reject(new Error(`${name} is not in TEST_DIALECTS`)),
    }
  );
}
