import type pg from 'pg';
import type { PostgresPool, PostgresPoolClient } from 'kysely';

/**
 * Named (prepared) statements on PostgreSQL: a SQL text the service runs again and again is parsed
 * and planned once per connection instead of on every request. PostgreSQL's planning of the product
 * list page alone costs more than running it (0.38 vs 0.25 ms); named statements raised the million-
 * product list from 1,365 to 1,620 req/s and cut its p99 from 25 to 19 ms (bench/PRODUCTS.md).
 *
 * Bounded and conservative:
 * - at most MAX_NAMED texts per process get a name (the first seen); later ones run unnamed, so no
 *   request can grow the statements a connection keeps (list queries vary with filters and sorts);
 * - texts with an `in (...)` list (their length varies with the batch) or a `like` pattern (its plan
 *   depends on the pattern: a generic plan could not use the trigram index) always run unnamed;
 * - a named statement whose result columns changed under it (a migration run by another instance
 *   during a rolling upgrade: "cached plan must not change result type") is retried unnamed when it
 *   is outside a transaction; inside one the error stands (the transaction is rolled back, and its
 *   caller may retry). Either way the connection is discarded on release, forgetting its statements.
 */
export const MAX_NAMED = 256;

const UNNAMED = / in \(| i?like /i;
const CACHED_PLAN_CHANGED = '0A000';

export interface NamedStatements {
  nameOf(text: string): string | undefined;
}

export function createNamedStatements(max = MAX_NAMED): NamedStatements {
  const names = new Map<string, string>();
  return {
    nameOf(text) {
      const known = names.get(text);
      if (known !== undefined) return known;
      if (names.size >= max || UNNAMED.test(text)) return undefined;
      const name = `cs_${names.size}`;
      names.set(text, name);
      return name;
    },
  };
}

/**
 * The pool Kysely's PostgresDialect uses: pg's own, with named statements on every connection.
 *
 * One wrapper per pg client, made on its first checkout and handed out again on every later one:
 * Kysely keys its connection objects by the client it gets (a WeakMap in its driver, a WeakSet in its
 * runtime driver), so a new wrapper per checkout made it build a new connection and two weak entries
 * for every statement, 1 MB of weak tables and ~2.6 MB promoted per young-generation collection
 * under W1 on PostgreSQL (bench/RESULTS.md). The wrapper's state belongs to the client anyway: whether
 * it is inside a transaction, and whether it must be discarded (then it is destroyed on release and
 * never checked out again).
 */
export function withNamedStatements(pool: pg.Pool, statements = createNamedStatements()): PostgresPool {
  const wrappers = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  const wrap = (client: pg.PoolClient): PostgresPoolClient => {
    let inTransaction = false;
    let discard = false;
    const run = async (text: string, values: readonly unknown[] | undefined) => {
      if (/^(begin|start transaction)\b/i.test(text)) inTransaction = true;
      else if (/^(commit|rollback)\b/i.test(text)) inTransaction = false;
      const name = statements.nameOf(text);
      if (name === undefined) return client.query(text, values as unknown[]);
      try {
        return await client.query({ name, text, values: values as unknown[] });
      } catch (error) {
        if ((error as { code?: string }).code !== CACHED_PLAN_CHANGED) throw error;
        discard = true;
        if (inTransaction) throw error;
        return client.query(text, values as unknown[]);
      }
    };
    return {
      query: ((text: unknown, values?: readonly unknown[]) =>
        typeof text === 'string' ? run(text, values) : client.query(text as never)) as unknown as PostgresPoolClient['query'],
      release: (destroy?: boolean) => client.release(destroy || discard),
    };
  };
  return {
    options: pool.options,
    async connect(): Promise<PostgresPoolClient> {
      const client = await pool.connect();
      let wrapper = wrappers.get(client);
      if (wrapper === undefined) wrappers.set(client, (wrapper = wrap(client)));
      return wrapper;
    },
    end: () => pool.end(),
  };
}
