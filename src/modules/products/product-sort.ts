import type { ProductSort } from './product.ts';

/**
 * Parses the seed's `sort` list (`-price,name`) against a version's whitelist of public names.
 * Any value outside the whitelist makes the whole order ascending by id (the seed's rule, which
 * also means no user text ever becomes a column name). A repeated key keeps its first direction.
 */
export function parseProductSort(
  raw: string | undefined,
  whitelist: Readonly<Record<string, ProductSort>>,
): ProductSort[] {
  if (raw === undefined) return [];
  const tokens = raw
    .split(',')
    .map((token) => token.trim())
    .filter(Boolean);
  const sorts: ProductSort[] = [];
  for (const token of tokens) {
    if (!Object.hasOwn(whitelist, token)) return [];
    const sort = whitelist[token]!;
    if (!sorts.some((s) => s.key === sort.key)) sorts.push(sort);
  }
  return sorts;
}
