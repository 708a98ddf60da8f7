import pg from 'pg';

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
