import { AsyncLocalStorage } from 'node:async_hooks';
import type { Principal } from '../access/principal.ts';

/** Who made a change (DECISIONS §19): a user, or the system (workers, start-up). */
export interface ChangeActor {
  type: 'user' | 'system';
  id: number | null;
}

/**
 * Where a write comes from: the request id and the caller, set once per HTTP request (every transport:
 * REST, GraphQL, batches) by `registerRequestContext`, and by the imports worker around a row's write.
 * The principal is read when a write asks, so the access hook may set it after the context begins.
 * Work outside any (a worker, the start-up) is the system's, with no request id.
 */
export interface WriteOrigin {
  requestId: string | null;
  principal(): Principal | null;
}

const storage = new AsyncLocalStorage<WriteOrigin>();

/** Runs `work` (and everything it awaits or schedules) as coming from `origin`. */
export function runWithOrigin<T>(origin: WriteOrigin, work: () => T): T {
  return storage.run(origin, work);
}

/** The actor of the current write: the caller, else the system. */
export function currentActor(): ChangeActor {
  const principal = storage.getStore()?.principal() ?? null;
  return principal ? { type: 'user', id: principal.userId } : { type: 'system', id: null };
}

/** The request id of the current write, if it comes from a request. */
export function currentRequestId(): string | null {
  return storage.getStore()?.requestId ?? null;
}
