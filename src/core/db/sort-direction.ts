/**
 * Sort directions, the one SQL keyword a client chooses (DECISIONS §13). A `SortDirection` is made only
 * here: the two constants, or `sortDirectionOf`, a lookup on the client's text that answers one of them
 * or nothing. Its type is branded, so no `string` (a query parameter, a GraphQL argument) can be passed
 * where a direction is wanted without going through the lookup; `directionSql` checks it again at run
 * time, where a direction is about to become SQL, so a value that got around the type (a cast, an
 * untyped object) is refused instead of written.
 *
 * Why: a list once copied `?order=` into its ORDER BY as text (`order=asc,(select ...)` ran).
 */

declare const BRAND: unique symbol;

export type SortDirection = ('asc' | 'desc') & { readonly [BRAND]: 'SortDirection' };

export const ASCENDING = 'asc' as SortDirection;
export const DESCENDING = 'desc' as SortDirection;

const BY_TEXT: ReadonlyMap<unknown, SortDirection> = new Map([
  ['asc', ASCENDING],
  ['desc', DESCENDING],
]);

/** The direction a client's text names (`asc` or `desc`, exactly), or undefined. */
export function sortDirectionOf(text: unknown): SortDirection | undefined {
  return BY_TEXT.get(text);
}

/** The opposite direction. */
export const reversed = (direction: SortDirection): SortDirection =>
  directionSql(direction) === 'asc' ? DESCENDING : ASCENDING;

/**
 * The keyword of a direction, checked: anything but the two constants throws (an internal error, never
 * SQL). The places that write a direction into a statement call this, not the value itself.
 */
export function directionSql(direction: SortDirection): 'asc' | 'desc' {
  if (direction !== ASCENDING && direction !== DESCENDING) {
    throw new TypeError('a sort direction must be asc or desc (sort-direction.ts): refusing to write it as SQL');
  }
  return direction;
}

/** The comparison that keeps rows after a key's value in that direction (`>` ascending, `<` descending). */
export const afterOperator = (direction: SortDirection, inclusive = false): '>' | '<' | '>=' | '<=' => {
  const ascending = directionSql(direction) === 'asc';
  if (inclusive) return ascending ? '>=' : '<=';
  return ascending ? '>' : '<';
};
