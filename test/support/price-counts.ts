import { sql } from 'kysely';
import type { Db } from '../../src/core/db/database.ts';
import { PRICE_BUCKET_CENTS } from '../../src/modules/products/product.ts';

/**
 * The number of (category, in stock, bucket) keys whose counter differs from a recount of the
 * products: 0 when `product_price_counts` is exact (a key counted nowhere but kept at n = 0 agrees).
 */
export async function priceCounterMismatches(db: Db): Promise<number> {
  const bucket = sql`price_cents / ${sql.lit(PRICE_BUCKET_CENTS)}`;
  const { rows } = await sql<{ mismatches: number | string }>`
    select count(*) as mismatches from (
      select category, in_stock, bucket from (
        select category, in_stock, bucket, n from product_price_counts
        union all
        select category, stock > 0, ${bucket}, -count(*) from products group by category, stock > 0, ${bucket}
      ) as d
      group by category, in_stock, bucket having sum(n) <> 0
    ) as m`.execute(db);
  return Number(rows[0]?.mismatches);
}
