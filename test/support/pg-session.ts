import pg from 'pg';

/**
 * A PostgreSQL session of its own, statement by statement (a test that holds row locks in one
 * transaction while the server runs another): `begin`, queries, `commit`, in the order the test says.
 */
export async function openPgSession(url: string): Promise<{
  query(text: string, values?: unknown[]): Promise<void>;
  end(): Promise<void>;
}> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return {
    async query(text, values) {
      await client.query(text, values);
    },
    end: () => client.end(),
  };
}
