/**
 * Row objects from a SQLite statement's value arrays (sqlite-adapter.ts reads rows as arrays):
 * node:sqlite's own row objects are slow to build and to read (dictionary mode), and adding the keys
 * one by one to an empty object (or to a copy of a template) gave every row a chain of shape changes
 * and megamorphic stores, several times the cost of an object literal (bench/RESULTS.md). So a row is
 * one object literal with computed keys, one literal per number of columns, written out below up to
 * sixteen; wider rows (none of today's tables) are built key by key.
 *
 * Computed keys define own properties: a column named `__proto__` is a property, never the prototype,
 * and of two columns of one name the last one wins, as one assignment after another would.
 */
type Keys = readonly string[];
type Values = readonly unknown[];
export type RowOf = (values: Values) => Record<string, unknown>;

const LITERALS: ((k: Keys, v: Values) => Record<string, unknown>)[] = [
  () => ({}),
  (k, v) => ({ [k[0]!]: v[0] }),
  (k, v) => ({ [k[0]!]: v[0], [k[1]!]: v[1] }),
  (k, v) => ({ [k[0]!]: v[0], [k[1]!]: v[1], [k[2]!]: v[2] }),
  (k, v) => ({ [k[0]!]: v[0], [k[1]!]: v[1], [k[2]!]: v[2], [k[3]!]: v[3] }),
  (k, v) => ({ [k[0]!]: v[0], [k[1]!]: v[1], [k[2]!]: v[2], [k[3]!]: v[3], [k[4]!]: v[4] }),
  (k, v) => ({ [k[0]!]: v[0], [k[1]!]: v[1], [k[2]!]: v[2], [k[3]!]: v[3], [k[4]!]: v[4], [k[5]!]: v[5] }),
  (k, v) => ({ [k[0]!]: v[0], [k[1]!]: v[1], [k[2]!]: v[2], [k[3]!]: v[3], [k[4]!]: v[4], [k[5]!]: v[5], [k[6]!]: v[6] }),
  (k, v) => ({ [k[0]!]: v[0], [k[1]!]: v[1], [k[2]!]: v[2], [k[3]!]: v[3], [k[4]!]: v[4], [k[5]!]: v[5], [k[6]!]: v[6], [k[7]!]: v[7] }),
  (k, v) => ({ [k[0]!]: v[0], [k[1]!]: v[1], [k[2]!]: v[2], [k[3]!]: v[3], [k[4]!]: v[4], [k[5]!]: v[5], [k[6]!]: v[6], [k[7]!]: v[7], [k[8]!]: v[8] }),
  (k, v) => ({ [k[0]!]: v[0], [k[1]!]: v[1], [k[2]!]: v[2], [k[3]!]: v[3], [k[4]!]: v[4], [k[5]!]: v[5], [k[6]!]: v[6], [k[7]!]: v[7], [k[8]!]: v[8], [k[9]!]: v[9] }),
  (k, v) => ({ [k[0]!]: v[0], [k[1]!]: v[1], [k[2]!]: v[2], [k[3]!]: v[3], [k[4]!]: v[4], [k[5]!]: v[5], [k[6]!]: v[6], [k[7]!]: v[7], [k[8]!]: v[8], [k[9]!]: v[9], [k[10]!]: v[10] }),
  (k, v) => ({ [k[0]!]: v[0], [k[1]!]: v[1], [k[2]!]: v[2], [k[3]!]: v[3], [k[4]!]: v[4], [k[5]!]: v[5], [k[6]!]: v[6], [k[7]!]: v[7], [k[8]!]: v[8], [k[9]!]: v[9], [k[10]!]: v[10], [k[11]!]: v[11] }),
  (k, v) => ({ [k[0]!]: v[0], [k[1]!]: v[1], [k[2]!]: v[2], [k[3]!]: v[3], [k[4]!]: v[4], [k[5]!]: v[5], [k[6]!]: v[6], [k[7]!]: v[7], [k[8]!]: v[8], [k[9]!]: v[9], [k[10]!]: v[10], [k[11]!]: v[11], [k[12]!]: v[12] }),
  (k, v) => ({ [k[0]!]: v[0], [k[1]!]: v[1], [k[2]!]: v[2], [k[3]!]: v[3], [k[4]!]: v[4], [k[5]!]: v[5], [k[6]!]: v[6], [k[7]!]: v[7], [k[8]!]: v[8], [k[9]!]: v[9], [k[10]!]: v[10], [k[11]!]: v[11], [k[12]!]: v[12], [k[13]!]: v[13] }),
  (k, v) => ({ [k[0]!]: v[0], [k[1]!]: v[1], [k[2]!]: v[2], [k[3]!]: v[3], [k[4]!]: v[4], [k[5]!]: v[5], [k[6]!]: v[6], [k[7]!]: v[7], [k[8]!]: v[8], [k[9]!]: v[9], [k[10]!]: v[10], [k[11]!]: v[11], [k[12]!]: v[12], [k[13]!]: v[13], [k[14]!]: v[14] }),
  (k, v) => ({ [k[0]!]: v[0], [k[1]!]: v[1], [k[2]!]: v[2], [k[3]!]: v[3], [k[4]!]: v[4], [k[5]!]: v[5], [k[6]!]: v[6], [k[7]!]: v[7], [k[8]!]: v[8], [k[9]!]: v[9], [k[10]!]: v[10], [k[11]!]: v[11], [k[12]!]: v[12], [k[13]!]: v[13], [k[14]!]: v[14], [k[15]!]: v[15] }),
];

/** Makes the objects of one statement's rows, the keys its columns in order. */
export function rowBuilder(columns: Keys): RowOf {
  const keys = [...columns];
  const literal = LITERALS[keys.length];
  if (literal !== undefined) return (values) => literal(keys, values);
  return (values) => {
    const row: Record<string, unknown> = {};
    for (let i = 0; i < keys.length; i++) Object.defineProperty(row, keys[i]!, { value: values[i], enumerable: true, writable: true, configurable: true });
    return row;
  };
}
