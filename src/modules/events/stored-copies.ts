import type { Db } from '../../core/db/database.ts';

/**
 * An erasure's reach into what the events module stores (DECISIONS §19): every stored event, and every copy
 * another module keeps of one (the webhook deliveries' payloads), rewritten where it may hold a person's
 * values. The events module imports nothing of the holders: they register (`onStoredCopies`).
 */

/** Whose values: copies keyed by their own resource (`user:12`), and any whose JSON text holds one of `texts`. */
export interface StoredValues {
  resource: string;
  texts: readonly string[];
}

/** A stored JSON text with the person's values replaced (the same text when it held none). */
export type Rewrite = (json: string) => string;

/** A module that keeps copies of events: rewrites its own, in the erasure's transaction. */
export interface StoredCopies {
  scrub(trx: Db, values: StoredValues, rewrite: Rewrite): Promise<void>;
}

/** The stored events' own scrub (`own`) and the registered holders of copies, scrubbed together. */
export function createStoredCopies(own: StoredCopies['scrub']) {
  const holders: StoredCopies[] = [];
  return {
    register: (copies: StoredCopies): void => void holders.push(copies),
    async scrub(trx: Db, values: StoredValues, rewrite: Rewrite): Promise<void> {
      await own(trx, values, rewrite);
      for (const copies of holders) await copies.scrub(trx, values, rewrite);
    },
  };
}
