import { encodeCursor } from '../../core/querying/list-cursor.ts';
import type { ListQuery } from '../../core/querying/list-query-parse.ts';
import { AppError } from '../../core/errors/app-error.ts';

/**
 * The seed's cursor of `GET /api/posts`: base64url of `{"id": N}`, the id of the last item returned.
 * The list now issues the query grammar's cursor (core/querying/list-cursor.ts), which carries that id
 * too, with the fingerprint of the filters and sort; a seed cursor still continues a list in the seed's
 * order (`withSeedCursorRead`), so a client walking the list across an upgrade is not cut off.
 */
const MAX_ID = 2147483647;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

export function encodePostCursor(lastId: number): string {
  return Buffer.from(JSON.stringify({ id: lastId }), 'utf8').toString('base64url');
}

const malformed = () =>
  AppError.validation([{ field: 'cursor', message: 'is not a valid cursor' }], 'Malformed cursor');

/** Returns the id the cursor points after; anything that is not a seed cursor is a 422. */
export function decodePostCursor(cursor: string): number {
  if (!BASE64URL.test(cursor) || cursor.length > 64) throw malformed();
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw malformed();
  }
  const id = (decoded as { id?: unknown } | null)?.id;
  if (
    typeof decoded !== 'object' ||
    decoded === null ||
    !Number.isSafeInteger(id) ||
    (id as number) < 1 ||
    (id as number) > MAX_ID
  ) {
    throw malformed();
  }
  return id as number;
}

/**
 * `query` with a seed cursor turned into the grammar's, when the list is in the seed's order (ids
 * descending, whatever the filters): the id alone places the next page there. Otherwise `query` as it
 * is: the grammar reads its cursor, and refuses a seed cursor for another order (422 naming `cursor`).
 */
export function withSeedCursorRead(query: ListQuery): ListQuery {
  const [first, ...rest] = query.sort;
  const seedOrder = rest.length === 0 && first?.column === 'id' && first.direction === 'desc';
  if (!seedOrder || query.cursor === undefined) return query;
  let id: number;
  try {
    id = decodePostCursor(query.cursor);
  } catch {
    return query;
  }
  return { ...query, cursor: encodeCursor(query.fingerprint, { values: [id], offset: 0 }) };
}
