/**
 * The hand-written stacks (bench/reference/, bench/bare/): started beside the service on its PostgreSQL
 * database, and loaded in turn with it, run by run, on W1–W4, before any write workload: all answer
 * from the very same seeded data.
 */
import { startProcess, type ServerProcess } from './processes.ts';

export const REFERENCE_WORKLOADS = ['W1', 'W2', 'W3', 'W4'];

/**
 * `reference`: the service's work done by hand (token, totals, links, access log); `bare`: none of it,
 * what a user would write instead (issue 37).
 */
export type HandWritten = 'reference' | 'bare';

const SCRIPTS: Record<HandWritten, string> = {
  reference: 'bench/reference/reference-server.ts',
  bare: 'bench/bare/bare-server.ts',
};

/** A hand-written server, pinned to the server's core; `nodeFlags` are the V8 flags it runs with. */
export function startHandWritten(
  kind: HandWritten,
  url: string,
  env: Record<string, string>,
  port: number,
  nodeFlags: string[],
  logFile: string,
): Promise<ServerProcess> {
  // DATABASE_POOL_SIZE, when set, reaches every server from this process's environment (default 10 in each).
  return startProcess(
    [...nodeFlags, SCRIPTS[kind]],
    { ...env, DATABASE_URL: url, PORT: String(port) },
    port,
    logFile,
    '/readyz',
  );
}
