import { after, before } from 'node:test';
import pg from 'pg';
import type { TestDialect } from './dialects.ts';

/**
 * A PostgreSQL session of its own, statement by statement (a test that holds row locks in one
 * transaction while the server runs another): `begin`, queries, `commit`, in the order the test says.
 */
export interface PgSession {
  /** Runs one statement; its rows. */
  query<R = Record<string, unknown>>(text: string, values?: unknown[]): Promise<R[]>;
  end(): Promise<void>;
}

export async function openPgSession(url: string): Promise<PgSession> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return {
    async query<R>(text: string, values?: unknown[]) {
      return (await client.query(text, values)).rows as R[];
    },
    end: () => client.end(),
  };
}

/**
 * A fresh database of `postgres` for the enclosing `describe`, with a session on it: made before its
 * tests, the session ended and the database dropped after them. Read `url` and `client` inside the tests.
 */
export function withPgDatabase(postgres: TestDialect): { readonly url: string; readonly client: PgSession } {
  let database: { url: string; drop(): Promise<void> } | undefined;
  let client: PgSession | undefined;
  before(async () => {
    database = await postgres.createDatabase();
    client = await openPgSession(database.url);
  });
  after(async () => {
    await client?.end();
    await database?.drop();
  });
  return {
    get url() {
      return database!.url;
    },
    get client() {
      return client!;
    },
  };
}
