/**
 * The hand-written reference (bench/reference/): started on the PostgreSQL database the service has
 * just been measured on, after the rows the service's write workloads added are removed again, so it
 * answers W1–W4 from the very data the service answered them from.
 */
import pg from 'pg';
import { startProcess, type ServerProcess } from './processes.ts';

export const REFERENCE_WORKLOADS = ['W1', 'W2', 'W3', 'W4'];
const TABLES = ['comments', 'posts', 'users'] as const;
export type SeededIds = Record<(typeof TABLES)[number], number>;

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** The highest id of each table the write workloads (W5, W8) add to, right after seeding. */
export const seededIds = (url: string): Promise<SeededIds> =>
  withClient(url, async (client) => {
    const ids = {} as SeededIds;
    for (const table of TABLES) ids[table] = Number((await client.query(`select coalesce(max(id), 0) as id from ${table}`)).rows[0].id);
    return ids;
  });

/** Deletes what was written after seeding (W8's posts would otherwise head user 1's posts in W3) and vacuums. */
export const resetToSeeded = (url: string, ids: SeededIds): Promise<string> =>
  withClient(url, async (client) => {
    const removed: string[] = [];
    for (const table of TABLES) removed.push(`${(await client.query(`delete from ${table} where id > $1`, [ids[table]])).rowCount} ${table}`);
    await client.query(`vacuum analyze ${TABLES.join(', ')}`);
    return removed.join(', ');
  });

/** The reference server, pinned and logged like the service; `nodeFlags` are the service's V8 flags. */
export function startReference(url: string, env: Record<string, string>, port: number, nodeFlags: string[], logFile: string): Promise<ServerProcess> {
  // DATABASE_POOL_SIZE, when set, reaches both servers from this process's environment (default 10 in both).
  return startProcess([...nodeFlags, 'bench/reference/reference-server.ts'], { ...env, DATABASE_URL: url, PORT: String(port) }, port, logFile, '/readyz');
}
