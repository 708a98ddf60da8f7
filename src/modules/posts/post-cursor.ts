import { AppError } from '../../core/errors/app-error.ts';

/**
 * The opaque cursor of `GET /api/posts`: base64url of `{"id": N}`, the id of the last item returned.
 * Clients must not build it; the JSON inside leaves room to add keys without breaking old cursors.
 */
const MAX_ID = 2147483647;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

export function encodePostCursor(lastId: number): string {
  return Buffer.from(JSON.stringify({ id: lastId }), 'utf8').toString('base64url');
}

const malformed = () =>
  AppError.validation([{ field: 'cursor', message: 'is not a valid cursor' }], 'Malformed cursor');

/** Returns the id the cursor points after; anything that is not a cursor we issued is a 422. */
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
