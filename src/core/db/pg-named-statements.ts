/**
 * Which SQL texts run as named (prepared) statements on PostgreSQL: a text the service runs again and
 * again is then parsed and planned once per connection instead of on every request. PostgreSQL's
 * planning of the product list page alone costs more than running it, and named statements raised the
 * million-product list's throughput and cut its p99 (bench/PRODUCTS.md). `pg-driver.ts` applies the names.
 *
 * Bounded and conservative:
 * - at most MAX_NAMED texts per process get a name (the first seen); later ones run unnamed, so no
 *   request can grow the statements a connection keeps (list queries vary with filters and sorts);
 * - texts with an `in (...)` list (their length varies with the batch), a `like` pattern (its plan
 *   depends on the pattern: a generic plan could not use the trigram index) or the PLANNED_PER_VALUES
 *   mark always run unnamed, so PostgreSQL plans them for their values on every run.
 */
export const MAX_NAMED = 256;

/**
 * A comment a statement's author puts in its text when its best plan depends on its values: a named
 * statement gets PostgreSQL's generic plan after five runs, planned for any values, and a range filter
 * that matches almost nothing (`created_at >= $1`, a date after every row) is then read in another
 * index's order past every row (core/querying/list-sql.ts marks such list statements).
 */
export const PLANNED_PER_VALUES = '/* planned per values */';

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
      if (names.size >= max || UNNAMED.test(text) || text.includes(PLANNED_PER_VALUES)) return undefined;
      const name = `cs_${names.size}`;
      names.set(text, name);
      return name;
    },
  };
}
