/**
 * Row objects from a SQLite statement's value arrays (sqlite-adapter.ts reads rows as arrays):
 * node:sqlite's own row objects are slow to build and to read (dictionary mode). Here every row of a
 * column list is a copy of one template object holding those columns in order (a spread keeps the
 * template's shape), then filled in: one shape per column list, property writes that change no shape.
 * Adding the keys one by one to an empty object instead, or one computed-key literal per number of
 * columns shared by every statement of that width, cost several times more per row.
 *
 * Of two columns of one name the last one wins, as one assignment after another would. A column named
 * `__proto__` is defined as a property (never the prototype), key by key.
 */
export type RowOf = (values: readonly unknown[]) => Record<string, unknown>;

/** Makes the objects of one statement's rows, the keys its columns in order. */
export function rowBuilder(columns: readonly string[]): RowOf {
  const keys = [...columns];
  if (keys.includes('__proto__')) return (values) => definedRow(keys, values);
  const template: Record<string, unknown> = {};
  for (const key of keys) template[key] = undefined;
  return (values) => {
    const row = { ...template };
    for (let i = 0; i < keys.length; i++) row[keys[i]!] = values[i];
    return row;
  };
}

function definedRow(keys: readonly string[], values: readonly unknown[]): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (let i = 0; i < keys.length; i++)
    Object.defineProperty(row, keys[i]!, { value: values[i], enumerable: true, writable: true, configurable: true });
  return row;
}
