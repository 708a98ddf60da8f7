import { trashProperties } from '../history/trash.representation.ts';
import { Type, type TString } from 'typebox';
import { Link, Named, Nullable } from '../../core/http/schemas.ts';
import { Versioned } from '../../core/http/versioning.ts';

/**
 * A product's REST representation in each version: what its reads answer (products.schemas.ts) and
 * the shape another resource embeds a product in (an order line's `product`). Apart from
 * products.schemas.ts so that another module's schemas embed it without importing products' schemas.
 */
const productViewOf = <K extends string>(createdKey: K) =>
  Named(
    'Product',
    Type.Object(
      {
        id: Type.Integer(),
        name: Type.String(),
        category: Type.String(),
        price: Type.Number(),
        stock: Type.Integer(),
        image: Nullable(Type.String()),
        description: Nullable(Type.String()),
        ...({ [createdKey]: Type.String({ format: 'date-time' }) } as Record<K, TString>),
        updatedAt: Type.String({ format: 'date-time' }),
        ...trashProperties,
        _links: Type.Object({ self: Link }),
      },
      { additionalProperties: false },
    ),
  );

/** v1 names the creation time `created_at`, v2 `createdAt` (DECISIONS §7); the rest is the same. */
export const ProductViewV1 = productViewOf('created_at');
export const ProductViewV2 = productViewOf('createdAt');
export const ProductView = Versioned(ProductViewV1, ProductViewV2);
