/**
 * The columns to read for a set of domain field names, through a resource's field → column map;
 * names with no column (relations, `__typename`) are ignored and `always` (ids and the keys other
 * loaders follow) is always read. Without `fields`, undefined: read every column.
 */
export function columnsFor<C extends string>(
  fields: Iterable<string> | undefined,
  columnOf: Readonly<Record<string, C>>,
  always: readonly C[],
): C[] | undefined {
  if (fields === undefined) return undefined;
  const columns = new Set<C>(always);
  for (const field of fields) {
    const column = Object.hasOwn(columnOf, field) ? columnOf[field] : undefined;
    if (column !== undefined) columns.add(column);
  }
  return [...columns];
}
