import { requireSignedIn } from '../../core/access/guards.ts';
import type { Principal } from '../../core/access/principal.ts';
import { AppError } from '../../core/errors/app-error.ts';
import { assertMaySeeTrash, type TrashedResource } from './trash.ts';

/**
 * `?trashed=include` on a list (DECISIONS §19): the live list first, by its own filters and sort, then the
 * trash, most recently deleted first, without the live list's filters and sort (as `trashed=only`). One
 * cursor says which part it is in and carries that part's own cursor, so pages follow each other across
 * the boundary without a loss or a repeat; a page that ends the live part is filled from the trash.
 * Cursor pages only (`page` other than 1 is 422): each page costs its length in each part it reads.
 * Who may: admins; for posts and comments any signed-in reader, whose trash part is their own (the live
 * part is the list they see anyway); anyone else 403.
 */

export interface PartPage<T> {
  items: T[];
  nextCursor: string | null;
}

interface Position {
  part: 'live' | 'trash';
  cursor?: string | undefined;
}

const encode = (position: Position) => Buffer.from(JSON.stringify(position)).toString('base64url');

function decode(cursor: string | undefined): Position {
  if (cursor === undefined) return { part: 'live' };
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Partial<Position>;
    if (
      (parsed.part === 'live' || parsed.part === 'trash') &&
      (parsed.cursor === undefined || typeof parsed.cursor === 'string')
    ) {
      return { part: parsed.part, cursor: parsed.cursor };
    }
  } catch {
    // answered below
  }
  throw AppError.validation([{ field: 'cursor', message: 'is not a cursor this list issued (trashed=include)' }]);
}

export async function includeTrashed<T>(options: {
  principal: Principal | null;
  resource: TrashedResource;
  cursor?: string | undefined;
  page?: number | undefined;
  /** The page size: the live list's own (its `limit`, clamped by its rules). */
  limit: number;
  /** The live list's page of `limit` after its own `cursor` (undefined: the first page). */
  live: (cursor: string | undefined) => Promise<PartPage<T>>;
  /** The trash's page of at most `limit` after its own `cursor`, most recently deleted first. */
  trash: (cursor: string | undefined, limit: number) => Promise<PartPage<T>>;
}): Promise<PartPage<T> & { limit: number }> {
  const principal = requireSignedIn(options.principal);
  if (options.resource === 'user' || options.resource === 'product') assertMaySeeTrash(principal, options.resource);
  if (options.page !== undefined && options.page !== 1) {
    throw AppError.validation([{ field: 'page', message: 'trashed=include pages by cursor only' }]);
  }
  const position = decode(options.cursor);
  const { limit } = options;
  if (position.part === 'trash') {
    const trash = await options.trash(position.cursor, limit);
    return { items: trash.items, nextCursor: next('trash', trash.nextCursor), limit };
  }
  const live = await options.live(position.cursor);
  if (live.nextCursor !== null) {
    return { items: live.items, nextCursor: encode({ part: 'live', cursor: live.nextCursor }), limit };
  }
  const room = limit - live.items.length;
  // A full last live page: one trashed item read tells whether a trash part follows.
  const trash = await options.trash(undefined, Math.max(room, 1));
  if (room <= 0) {
    return { items: live.items, nextCursor: trash.items.length > 0 ? encode({ part: 'trash' }) : null, limit };
  }
  return { items: [...live.items, ...trash.items], nextCursor: next('trash', trash.nextCursor), limit };
}

const next = (part: Position['part'], cursor: string | null) => (cursor === null ? null : encode({ part, cursor }));

/** `pagination` of an included list: the cursor lists' shape of `trashed=only` (no total, no offset). */
export const includedPagination = (page: PartPage<unknown> & { limit: number }) => ({
  page: 1,
  limit: page.limit,
  hasNext: page.nextCursor !== null,
  hasPrev: false,
  nextCursor: page.nextCursor,
});

/**
 * A list's whole `trashed=include` answer, `{data, pagination}`: the parts' pages of domain items
 * (`includeTrashed`), each shown by `view`.
 */
export async function includedListAnswer<T, V>(
  options: Parameters<typeof includeTrashed<T>>[0] & { view: (item: T) => V },
): Promise<{ data: V[]; pagination: ReturnType<typeof includedPagination> }> {
  const page = await includeTrashed(options);
  return { data: page.items.map(options.view), pagination: includedPagination(page) };
}

/**
 * A list's answer to `trashed=only` (the trash's page alone, most recently deleted first) or `trashed=include`
 * (`includedListAnswer`); undefined without `trashed`, where the live list answers.
 */
export async function trashedListAnswer<T, V>(
  trashed: 'only' | 'include' | undefined,
  options: Parameters<typeof includedListAnswer<T, V>>[0],
): Promise<{ data: V[]; pagination: ReturnType<typeof includedPagination> } | undefined> {
  if (trashed === 'include') return includedListAnswer(options);
  if (trashed !== 'only') return undefined;
  const page = await options.trash(options.cursor, options.limit);
  return { data: page.items.map(options.view), pagination: includedPagination({ ...page, limit: options.limit }) };
}
