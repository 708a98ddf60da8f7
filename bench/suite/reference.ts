/**
 * The hand-written reference (bench/reference/): started beside the service on its PostgreSQL
 * database, and loaded in turn with it, run by run, on W1–W4, before any write workload: both answer
 * from the very same seeded data.
 */
import { startProcess, type ServerProcess } from './processes.ts';

export const REFERENCE_WORKLOADS = ['W1', 'W2', 'W3', 'W4'];

/** The reference server, pinned and logged like the service; `nodeFlags` are the service's V8 flags. */
export function startReference(
  url: string,
  env: Record<string, string>,
  port: number,
  nodeFlags: string[],
  logFile: string,
): Promise<ServerProcess> {
  // DATABASE_POOL_SIZE, when set, reaches both servers from this process's environment (default 10 in both).
  return startProcess(
    [...nodeFlags, 'bench/reference/reference-server.ts'],
    { ...env, DATABASE_URL: url, PORT: String(port) },
    port,
    logFile,
    '/readyz',
  );
}
