import { AsyncLocalStorage } from 'node:async_hooks';
import diagnostics from 'node:diagnostics_channel';
import { observeQueries, type Db } from '../../src/core/db/database.ts';

const measured = new AsyncLocalStorage<true>();
/** Fastify runs every route handler inside this channel's stores (its documented diagnostics channel). */
const routeHandler = diagnostics.channel('tracing:fastify.request.handler:start');

/**
 * The statements `work` has `db` run, and only those: the ones issued from `work`'s own async context
 * (a service or repository called in the test process) and from the route handlers of the requests
 * answered while it runs (a request sent to a test server in this process).
 *
 * Counting every statement `db` reports between two points counted other work on the same pool too:
 * a background worker's poll (the report worker's claim opens a transaction on PostgreSQL: "a
 * concurrent begin was counted", a flake under load), a sweep, any statement still finishing. A
 * statement belongs to the async context that issued it, whatever its timing, so this count cannot
 * pick them up. Statements of a request's hooks (before its handler) are not counted.
 */
export async function statementsOf<T>(db: Db, work: () => Promise<T>): Promise<{ result: T; statements: string[] }> {
  const statements: string[] = [];
  const stop = observeQueries(db, (sql) => {
    if (measured.getStore()) statements.push(sql);
  });
  routeHandler.bindStore(measured, () => true);
  try {
    const result = await measured.run(true, work);
    return { result, statements };
  } finally {
    routeHandler.unbindStore(measured);
    stop();
  }
}
