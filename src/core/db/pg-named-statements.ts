/**
 * Which SQL texts run as named (prepared) statements on PostgreSQL: a text the service runs again and
 * again is then parsed and planned once per connection instead of on every request. PostgreSQL's
 * planning of the product list page alone costs more than running it, and named statements raised the
 * million-product list's throughput and cut its p99 (bench/PRODUCTS.md). `pg-driver.ts` applies the names.
 *
 * Bounded and conservative:
 * - at most MAX_NAMED texts per process get a name (the first seen); later ones run unnamed, so no
 *   request can grow the statements a connection keeps (list queries vary with filters and sorts);
 * - texts with an `in (...)` list (their length varies with the batch) or a `like` pattern (its plan
 *   depends on the pattern: a generic plan could not use the trigram index) always run unnamed.
 */
export const MAX_NAMED = 256;

const UNNAMED = / in \(| i?like /i;

export interface NamedStatements {
  /** The name `text` runs under, or undefined: run it unnamed. */
  nameOf(text: string): string | undefined;
}

export function createNamedStatements(max = MAX_NAMED): NamedStatements {
  const names = new Map<string, string>();
  return {
    nameOf(text) {
      const known = names.get(text);
      if (known !== undefined) return known;
      if (names.size >= max || UNNAMED.test(text)) return undefined;
      const name = `cs_${names.size}`;
      names.set(text, name);
      return name;
    },
  };
}
