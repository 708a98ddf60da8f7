import type { TrashFields } from '../history/trash.types.ts';
import { ASCENDING, DESCENDING } from '../../core/db/sort-direction.ts';
import type { ApiVersion } from '../../core/http/versioning.ts';
import { pickFields } from '../../core/pagination.ts';
import { priceOf, type Product, type ProductSort } from './product.ts';

/**
 * The REST representation of a product. This file is the one place that names the public
 * fields and sort values: v2 renames only `created_at` to `createdAt` (DECISIONS §7), a switch on
 * the version here and nowhere else.
 */
export const PRODUCT_FIELDS = [
  'id',
  'name',
  'category',
  'price',
  'stock',
  'image',
  'description',
  'sku',
  'created_at',
  'updatedAt',
] as const;
export const PRODUCT_FIELDS_V2 = [
  'id',
  'name',
  'category',
  'price',
  'stock',
  'image',
  'description',
  'sku',
  'createdAt',
  'updatedAt',
] as const;
export type ProductField = (typeof PRODUCT_FIELDS)[number] | (typeof PRODUCT_FIELDS_V2)[number];

/** The public field names of a version, for `fields`. */
export function productFields(version: ApiVersion): readonly ProductField[] {
  return version === 1 ? PRODUCT_FIELDS : PRODUCT_FIELDS_V2;
}

/** The seed's five-value sort whitelist, mapped to domain sort keys. */
export const PRODUCT_SORTS: Readonly<Record<string, ProductSort>> = {
  price: { key: 'price', direction: ASCENDING },
  '-price': { key: 'price', direction: DESCENDING },
  name: { key: 'name', direction: ASCENDING },
  '-name': { key: 'name', direction: DESCENDING },
  created_at: { key: 'createdAt', direction: ASCENDING },
};

/** v2: `createdAt` instead of `created_at`, and `-createdAt` allowed too. */
export const PRODUCT_SORTS_V2: Readonly<Record<string, ProductSort>> = {
  price: { key: 'price', direction: ASCENDING },
  '-price': { key: 'price', direction: DESCENDING },
  name: { key: 'name', direction: ASCENDING },
  '-name': { key: 'name', direction: DESCENDING },
  createdAt: { key: 'createdAt', direction: ASCENDING },
  '-createdAt': { key: 'createdAt', direction: DESCENDING },
};

/**
 * Only `self`: product reads are public and cached by shared caches (`public, max-age=60`,
 * no `Vary: Authorization`), so the representation must not depend on who asks.
 */
export function productLinks(prefix: string, id: number) {
  return { self: { href: `${prefix}/products/${id}` } };
}

export function toProductView(product: Product & Partial<TrashFields>, prefix: string, version: ApiVersion = 1) {
  const { createdAt, updatedAt } = product;
  // A trashed product's trash fields (DECISIONS §19: `trashed=include|only`), absent on a live one.
  const trash: Partial<TrashFields> = product.deletedAt
    ? {
        deletedAt: product.deletedAt,
        deletedBy: product.deletedBy!,
        deletionId: product.deletionId!,
        purgeAt: product.purgeAt!,
      }
    : {};
  return {
    id: product.id,
    name: product.name,
    category: product.category,
    price: priceOf(product.priceCents),
    stock: product.stock,
    image: product.image,
    description: product.description,
    sku: product.sku,
    ...(version === 1 ? { created_at: createdAt } : { createdAt }),
    updatedAt,
    ...trash,
    _links: productLinks(prefix, product.id),
  };
}

/** A list item: the fields asked for (all by default, `id` always) plus the links. */
export function toProductListItem(
  product: Product,
  prefix: string,
  fields: readonly ProductField[] | undefined,
  version: ApiVersion = 1,
) {
  const { _links, ...view } = toProductView(product, prefix, version);
  return { ...pickFields(view, fields as (keyof typeof view)[] | undefined), _links };
}
