import { TrashedListParameter, TrashedReadParameter } from '../history/trash.representation.ts';
import { Type, type Static } from 'typebox';
import { FieldsQuery, Nullable, OffsetQuery, PageQuery, Named } from '../../core/http/schemas.ts';
import { Versioned } from '../../core/http/versioning.ts';
import { queriedPageOf } from '../../core/querying/list-page.ts';
import { CountAndCursorParameters, filterParameters } from '../../core/querying/list-query-schema.ts';
import { searchHitProperty, searchParameters, SuggestionProperty } from '../../core/search/search-results.ts';
import { facetsParameter, withFacets } from '../../core/querying/aggregate-schema.ts';
import { PRODUCT_AGGREGATES_V1 } from './products.aggregate.ts';
import { NOT_BLANK } from '../../core/validation/ajv.ts';
import { PRICE_BOUNDS } from './product.ts';
import { PRODUCT_QUERY_V1, PRODUCT_QUERY_V2, type ProductQuery } from './products.list.ts';
import { ProductViewV1, ProductViewV2 } from './products.representation.ts';
import { PRODUCT_SEARCH } from './products.table.ts';
import { PRODUCT_FIELDS, PRODUCT_FIELDS_V2 } from './products.presenter.ts';

export { ProductView, ProductViewV1, ProductViewV2 } from './products.representation.ts';

/** Field rules of DECISIONS §2, declared once: REST validates with them and so does the service. */
export const ProductName = Type.String({
  minLength: 1,
  maxLength: 200,
  pattern: NOT_BLANK,
  examples: ['Mechanical Keyboard'],
});
export const Category = Type.String({ minLength: 1, maxLength: 100, pattern: NOT_BLANK, examples: ['electronics'] });
/**
 * Whole cents: `multipleOf: 0.01`, which ajv holds with its `multipleOfPrecision` (core/validation/ajv.ts);
 * the service checks cents again exactly (product.ts), for a value a hair off a cent.
 */
export const Price = Type.Number({
  ...PRICE_BOUNDS,
  description: 'At most two decimals',
  examples: [89.99],
});
export const Stock = Type.Integer({ minimum: 0, maximum: 2147483647 });
export const Image = Nullable(
  Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2048, description: 'An http(s) URL' }),
);
export const Description = Nullable(Type.String({ maxLength: 10_000 }));
/** DECISIONS §18: optional, 1-64 characters, unique when present (409 when taken). */
export const Sku = Nullable(
  Type.String({
    minLength: 1,
    maxLength: 64,
    pattern: NOT_BLANK,
    examples: ['KB-MECH-001'],
    description: 'Unique when present',
  }),
);

export const CreateProductInput = Type.Object(
  {
    name: ProductName,
    category: Category,
    price: Price,
    stock: Stock,
    image: Type.Optional(Image),
    description: Type.Optional(Description),
    sku: Type.Optional(Sku),
  },
  { additionalProperties: false, description: 'A new product; image, description and sku default to null' },
);
export type CreateProductInput = Static<typeof CreateProductInput>;

export const ReplaceProductInput = Type.Object(CreateProductInput.properties, {
  additionalProperties: false,
  description: 'Full replacement: an absent image or description becomes null',
});
export type ReplaceProductInput = Static<typeof ReplaceProductInput>;

export const UpdateProductInput = Type.Object(
  {
    name: Type.Optional(ProductName),
    category: Type.Optional(Category),
    price: Type.Optional(Price),
    stock: Type.Optional(Stock),
    image: Type.Optional(Image),
    description: Type.Optional(Description),
    sku: Type.Optional(Sku),
  },
  { additionalProperties: false, description: 'Partial update: only the fields sent change' },
);
export type UpdateProductInput = Static<typeof UpdateProductInput>;

/**
 * The seed's `in_stock`: only `true` has an effect, any other text is ignored. Typed boolean or string, so a
 * generated client may send `true` as a boolean (it arrives as the text `true`); ajv leaves a string as it
 * is, since one of the types matches, and the route compares the text.
 */
const InStockQuery = Type.Unsafe<boolean | string>({
  type: ['boolean', 'string'],
  description: 'Only `true` has an effect (stock > 0); any other value is ignored',
});

/** The list's query parameters in a version: the seed's, then `count`, `cursor` and the grammar's filters. */
export const listProductsQueryOf = (grammar: ProductQuery, sorts: string, fields: readonly string[]) =>
  Type.Object({
    ...PageQuery,
    offset: OffsetQuery,
    category: Type.Optional(Type.String({ description: 'Equality filter' })),
    min_price: Type.Optional(Type.Number({ description: 'Price greater than or equal to the value' })),
    max_price: Type.Optional(Type.Number({ description: 'Price less than or equal to the value' })),
    in_stock: Type.Optional(InStockQuery),
    search: Type.Optional(Type.String({ description: 'Case-insensitive substring of the name, matched literally' })),
    sort: Type.Optional(
      Type.String({
        description: `Comma-separated: ${sorts}; a leading \`-\` is descending; ties break by ascending id; any other value gives ascending id (with q: best match first, relevance)`,
        examples: ['-price,name'],
      }),
    ),
    fields: FieldsQuery(fields),
    ...CountAndCursorParameters,
    ...filterParameters(grammar),
    ...searchParameters(PRODUCT_SEARCH),
    ...facetsParameter(PRODUCT_AGGREGATES_V1),
    ...TrashedListParameter,
  });

/** `GET /products/{id}`: with `trashed=include`, a product in the trash too (admins; DECISIONS §19). */
export const ProductByIdQuery = Type.Object(TrashedReadParameter);

/** v1 filters by `created_at[...]` and sorts by `created_at`; v2 says `createdAt` (DECISIONS §7). */
export const ListProductsQuery = Versioned(
  listProductsQueryOf(PRODUCT_QUERY_V1, 'price, -price, name, -name, created_at', PRODUCT_FIELDS),
  listProductsQueryOf(PRODUCT_QUERY_V2, 'price, -price, name, -name, createdAt, -createdAt', PRODUCT_FIELDS_V2),
);
export type ListProductsQuery = Static<typeof ListProductsQuery>;

/** `data` of `product.deleted`. */
export const DeletedProduct = Named(
  'DeletedProduct',
  Type.Object({ id: Type.Integer() }, { additionalProperties: false }),
);

/** List items may be cut down by `fields`, so every property is optional there; `_search` with `q`. */
const productFieldsOf = (view: typeof ProductViewV1 | typeof ProductViewV2) =>
  Named(
    'ProductFields',
    Type.Object(
      { ...Type.Partial(view).properties, ...searchHitProperty(PRODUCT_SEARCH, 'ProductSearchHit') },
      { additionalProperties: false },
    ),
  );
const productPage = queriedPageOf(
  Versioned(productFieldsOf(ProductViewV1), productFieldsOf(ProductViewV2)),
  'ProductPage',
);
export const ProductList = withFacets(
  Named(
    'ProductPage',
    Type.Object({
      ...productPage.properties,
      ...SuggestionProperty,
      facetsEstimated: Type.Optional(
        Type.Boolean({
          description:
            'Present (true) when the facets counted more than COUNT_EXACT_LIMIT matching products: counts from a sample of them, scaled to the estimated matches',
        }),
      ),
    }),
  ),
  PRODUCT_AGGREGATES_V1,
);
