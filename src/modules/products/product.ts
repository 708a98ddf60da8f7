import type { SortDirection } from '../../core/db/sort-direction.ts';
import type { ProductRow } from './products.table.ts';

/** The product as the domain knows it: money in exact integer cents. */
export interface Product {
  id: number;
  name: string;
  category: string;
  priceCents: number;
  stock: number;
  image: string | null;
  description: string | null;
  sku: string | null;
  createdAt: string;
  updatedAt: string;
}

export type ProductSortKey = 'price' | 'name' | 'createdAt';

/** One key of a list order; an empty list of keys means ascending id. Ties always break by ascending id. */
export type ProductSort = {
  key: ProductSortKey;
  direction: SortDirection;
};

export interface ProductFilter {
  category?: string | undefined;
  /** Inclusive bounds, in cents. */
  minPriceCents?: number | undefined;
  maxPriceCents?: number | undefined;
  inStock?: boolean | undefined;
  /** Case-insensitive substring of the name, matched literally. */
  search?: string | undefined;
}

export function toProduct(row: ProductRow): Product {
  return {
    id: row.id,
    name: row.name,
    category: row.category,
    priceCents: Number(row.price_cents),
    stock: row.stock,
    image: row.image,
    description: row.description,
    sku: row.sku ?? null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
