import { sql } from 'kysely';
import { dialectOf, type Db } from '../../core/db/database.ts';
import { aggregateColumnsOf, MAX_FACET_VALUES, type AggregateGrammar } from '../../core/querying/aggregate-grammar.ts';
import type { AggregateQuery } from '../../core/querying/aggregate-parse.ts';
import type { AggregateResult, FacetValue } from '../../core/querying/aggregate-answer.ts';
import { createAggregateStatements } from '../../core/querying/aggregate-sql.ts';
import type { Condition } from '../../core/querying/list-grammar.ts';
import { listColumnsOf } from '../../core/querying/list-sql.ts';
import { PRODUCT_AGGREGATES_V1, PRODUCT_AGGREGATES_V2 } from './products.aggregate.ts';
import { productFilterOf } from './products.page.repository.ts';
import { PRODUCT_QUERY_V1, PRODUCT_QUERY_V2 } from './products.query.ts';
import { PRODUCT_SEARCH } from './products.search.ts';
import type { SearchExpression } from '../../core/search/web-search.ts';

/** The SQL of products' aggregates and facets: core's statements over the products table and the list's columns. */
const columns = [
  ...listColumnsOf([PRODUCT_QUERY_V1, PRODUCT_QUERY_V2], 'id'),
  ...aggregateColumnsOf(PRODUCT_AGGREGATES_V1),
  ...aggregateColumnsOf(PRODUCT_AGGREGATES_V2),
];
const statements = new Map<AggregateGrammar, ReturnType<typeof createAggregateStatements>>(
  [PRODUCT_AGGREGATES_V1, PRODUCT_AGGREGATES_V2].map((grammar) => [
    grammar,
    createAggregateStatements('products', grammar, columns, PRODUCT_SEARCH),
  ]),
);

/** The groups and measures of the products `conditions` match. */
export function aggregateProducts(
  db: Db,
  grammar: AggregateGrammar,
  conditions: readonly Condition[],
  query: AggregateQuery,
  search?: SearchExpression,
): Promise<AggregateResult> {
  return statements.get(grammar)!.aggregate(db, conditions, query, search);
}

/**
 * The values and counts of each facet among the products `conditions` (and `search`) match, each
 * facet's own conditions left out. The category facet of the whole catalogue, or of the products in stock, is read from the
 * counters (`product_counts`, exact by triggers): a row per category instead of every product.
 */
export async function countProductFacets(
  db: Db,
  grammar: AggregateGrammar,
  conditions: readonly Condition[],
  names: readonly string[],
  search: SearchExpression | undefined,
  exactUpTo: number,
): Promise<{ facets: Record<string, FacetValue[]>; estimated: boolean }> {
  // The counters count every product: a search's facets count its matches.
  const counted = names.includes('category') && !search ? await countedCategoryFacet(db, conditions) : undefined;
  const rest = counted ? names.filter((name) => name !== 'category') : names;
  // Over more than `exactUpTo` matching rows, from a sample of them (aggregate-sql.ts `boundedFacets`).
  const { facets: counts, estimated } =
    rest.length > 0
      ? await statements.get(grammar)!.boundedFacets(db, conditions, rest, search, exactUpTo)
      : { facets: {} as Record<string, FacetValue[]>, estimated: false };
  return {
    facets: Object.fromEntries(names.map((name) => [name, name === 'category' && counted ? counted : counts[name]!])),
    estimated,
  };
}

/** The category facet from `product_counts` when the other conditions are none or "in stock" only; else undefined. */
async function countedCategoryFacet(db: Db, conditions: readonly Condition[]): Promise<FacetValue[] | undefined> {
  const filter = productFilterOf(conditions.filter((condition) => condition.field !== 'category'));
  if (!filter || Object.entries(filter).some(([name, value]) => name !== 'inStock' && value !== undefined)) {
    return undefined;
  }
  const total = sql<number | string>`sum(n)`;
  // By bytes on both databases, as the facets read from the rows (core/querying/aggregate-sql.ts).
  const byValue = dialectOf(db) === 'postgres' ? sql`category collate "C"` : sql`category`;
  let query = db
    .selectFrom('product_counts')
    .select([sql<string>`category`.as('value'), total.as('count')])
    .groupBy('category')
    // A category whose last product went keeps its counter row at zero.
    .having(total, '>', 0)
    .orderBy(total, 'desc')
    .orderBy(byValue)
    .limit(MAX_FACET_VALUES);
  if (filter.inStock) query = query.where('in_stock', '=', true);
  const rows = await query.execute();
  return rows.map((row) => ({ value: row.value, count: Number(row.count) }));
}
