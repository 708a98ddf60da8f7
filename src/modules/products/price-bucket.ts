/**
 * The width of a price bucket, in cents ($5). A price-range `total` sums the counters of the buckets
 * lying wholly inside the range and counts the rows of the (at most two) partial buckets at its edges:
 * a wider bucket means fewer counters to sum and more rows to count. Measured on a million products
 * (50 categories, $1–$999.99) over random cent-precision ranges, widths of 250–4000 cents: SQLite does
 * best at 250 (0.10 ms, 0.13 at 500), PostgreSQL at 500–1000 (a heap visit per counter), so 500 is the
 * compromise (bench/PRODUCTS.md).
 *
 * Migration 0003-product-price-counts built `product_price_counts` with this width and keeps its own
 * copy of the number (a migration never changes once applied): changing it here needs a new migration
 * that rebuilds the counters.
 */
export const PRICE_BUCKET_CENTS = 500;
