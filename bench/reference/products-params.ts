/** The products list's query string as the hand-written stacks read it (W2): filter, sort and page. */
import { isSort, type ProductFilter } from './queries.ts';

export type ProductsQuery = Partial<Record<'category' | 'min_price' | 'max_price' | 'sort' | 'limit' | 'page', string>>;

export interface ProductsParams {
  filter: ProductFilter;
  sort: string | undefined;
  limit: number;
  page: number;
  offset: number;
}

const numberOr = (value: string | undefined, fallback: number) =>
  value !== undefined && Number.isFinite(Number(value)) ? Number(value) : fallback;
const cents = (price: string | undefined) => (price === undefined ? undefined : Math.round(numberOr(price, 0) * 100));

/** The parameters, or undefined for an unknown sort (a 400); other bad values fall back to their defaults. */
export function productsParams(q: ProductsQuery): ProductsParams | undefined {
  if (q.sort !== undefined && !isSort(q.sort)) return undefined;
  const limit = Math.min(100, Math.max(1, Math.trunc(numberOr(q.limit, 20))));
  const page = Math.max(1, Math.trunc(numberOr(q.page, 1)));
  const filter = { category: q.category, minCents: cents(q.min_price), maxCents: cents(q.max_price) };
  return { filter, sort: q.sort, limit, page, offset: (page - 1) * limit };
}
