import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Which import a write belongs to (DECISIONS §18: an imported row's event carries `importId`). The
 * imports worker runs each row's single write (the same service call as the single request) inside
 * `asImportRow`; the outbox reads it when it builds the event's row, so no service passes it along and
 * no write path is written twice. Scoped to the row's write: work the write schedules for after its
 * commit (the consumers' wake-up) runs outside it.
 */
const storage = new AsyncLocalStorage<{ importId: number }>();

/** Runs `work` as a row of import `importId`: the events it records carry that id. */
export function asImportRow<T>(importId: number, work: () => Promise<T>): Promise<T> {
  return storage.run({ importId }, work);
}

/** The import the current write belongs to, if any. */
export function currentImportId(): number | undefined {
  return storage.getStore()?.importId;
}
