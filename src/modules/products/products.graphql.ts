import {
  graphqlAggregateArguments,
  graphqlAggregateTypeDefs,
  aggregateKeyResolvers,
  aggregateRequestOf,
} from '../../core/querying/aggregate-graphql.ts';
import { graphqlListTypeDefs, asGraphqlArguments, graphqlListParameters } from '../../core/querying/list-graphql.ts';
import type { FieldRule } from '../../core/querying/list-grammar.ts';
import { PRODUCT_AGGREGATES_V2 } from './products.aggregate.ts';
import { PRODUCT_QUERY_V2 } from './products.list.ts';
import { ASCENDING, DESCENDING } from '../../core/db/sort-direction.ts';
import type { GraphQLResolveInfo } from 'graphql';
import { nullIfNotFound, pageOf, toId, withId, type GraphQLContext } from '../../core/resolving/context.ts';
import { highlightsOf, highlightsRequested } from '../../core/resolving/highlights.ts';
import type {
  MutationCreateProductArgs,
  MutationDeleteProductArgs,
  MutationUpdateProductArgs,
  ProductHighlightsArgs,
  QueryProductArgs,
  QueryProductsAggregateArgs,
  QueryProductsArgs,
} from '../graphql-types.generated.ts';
import { priceOf, type Product, type ProductSort } from './product.ts';
import type { ProductsService } from './products.service.ts';

/** The fields the list sorts by: the seed's whitelist (`PRODUCT_SORTS`, products.presenter.ts), not every field the grammar filters. */
const SORTED_FIELDS: ReadonlySet<string> = new Set(['price', 'name', 'createdAt']);

/** v2's grammar with only the whitelist sortable: the SDL of `ProductFilter` and `ProductOrder`. */
const PRODUCT_GRAPHQL_GRAMMAR = {
  ...PRODUCT_QUERY_V2,
  fields: Object.fromEntries(
    Object.entries<FieldRule>(PRODUCT_QUERY_V2.fields).map(([name, rule]) => [
      name,
      { ...rule, sortable: SORTED_FIELDS.has(name) },
    ]),
  ),
};

/** The products slice of the GraphQL schema (composed in graphql/schema.ts); its resolvers below. */
export const productsTypeDefs = /* GraphQL */ `
  ${graphqlListTypeDefs(PRODUCT_GRAPHQL_GRAMMAR, 'Product')}

  ${graphqlAggregateTypeDefs(PRODUCT_AGGREGATES_V2, 'Product', 'Products')}

  """
  A product of the catalogue, as v2's REST object (without _links). Reads are public.
  """
  type Product {
    id: ID!
    name: String!
    category: String!
    """
    In currency units, at most two decimals (stored exactly in cents).
    """
    price: Float!
    stock: Int!
    """
    An http(s) URL, or null.
    """
    image: String
    description: String
    """
    A stock-keeping unit, unique when present (the natural key of REST's batch upserts), or null.
    """
    sku: String
    """
    ISO 8601 UTC with milliseconds, e.g. 2026-11-21T10:00:00.000Z.
    """
    createdAt: String!
    """
    When the product last changed, in the format of createdAt.
    """
    updatedAt: String!
    """
    With the list's \`search\`: how well the product matches it (higher is better; compare within one list only). Null otherwise.
    """
    searchScore: Float
    """
    With the list's \`search\`: each field named (name, category, description), its text HTML-escaped with the matched terms in <mark>…</mark>, cut to about 30 words around the best match, as REST's \`_search.highlights\`. Null otherwise.
    """
    highlights(fields: [String!]!): [SearchHighlight!]
  }

  """
  A new product: the rules of REST's POST /products (price at most two decimals).
  """
  input CreateProductInput {
    name: String!
    category: String!
    price: Float!
    stock: Int!
    image: String
    description: String
    sku: String
  }

  """
  Only the fields given change (REST's PATCH); {} changes nothing.
  """
  input UpdateProductInput {
    name: String
    category: String
    price: Float
    stock: Int
    image: String
    description: String
    sku: String
  }

  extend type Query {
    """
    Null when no product has this id. Public.
    """
    product(id: ID!): Product
    """
    Products by id (limit 1-100), or filtered and ordered as the REST list (docs/QUERYING.md); ties by id. Public.
    """
    products(
      limit: Int = 20
      offset: Int = 0
      filter: ProductFilter
      orderBy: [ProductOrder!]
      """
      Full-text search of name, category and description, web-search syntax as REST's \`q\` (docs/QUERYING.md): best match first unless \`orderBy\` says otherwise.
      """
      search: String
    ): [Product!]!
    """
    Measures per group of the products \`filter\` and \`search\` match: REST's GET /products/aggregate (docs/QUERYING.md). Public.
    """
    productsAggregate(
      filter: ProductFilter
      """
      Full-text search, as on \`products\`: only its matches are aggregated.
      """
      search: String
      ${graphqlAggregateArguments(PRODUCT_AGGREGATES_V2)}
    ): ProductsAggregate!
  }

  extend type Mutation {
    """
    Admin only.
    """
    createProduct(input: CreateProductInput!): Product!
    """
    Admin only.
    """
    updateProduct(id: ID!, input: UpdateProductInput!): Product!
    """
    Admin only. False when no such product exists; a product in orders cannot be deleted (CONFLICT).
    """
    deleteProduct(id: ID!): Boolean!
  }
`;

/** Each `ProductOrder` value as the seed's sort it stands for: a closed lookup, never a column from the request. */
const PRODUCT_ORDERS: Readonly<Record<string, ProductSort>> = {
  PRICE_ASC: { key: 'price', direction: ASCENDING },
  PRICE_DESC: { key: 'price', direction: DESCENDING },
  NAME_ASC: { key: 'name', direction: ASCENDING },
  NAME_DESC: { key: 'name', direction: DESCENDING },
  CREATED_AT_ASC: { key: 'createdAt', direction: ASCENDING },
  CREATED_AT_DESC: { key: 'createdAt', direction: DESCENDING },
};

/** `orderBy` as the service's sort: a key named twice keeps its first direction, as REST's `sort`. */
function sortOf(orderBy: readonly string[] | null | undefined): ProductSort[] {
  const sorts: ProductSort[] = [];
  for (const value of orderBy ?? []) {
    const sort = PRODUCT_ORDERS[value];
    if (sort && !sorts.some((s) => s.key === sort.key)) sorts.push(sort);
  }
  return sorts;
}

/** GraphQL adapters over the products service: the same rules, permissions and events as REST. */
export function productsResolvers({ products }: { products: ProductsService }) {
  return {
    resolvers: {
      Query: {
        product: (_: unknown, args: QueryProductArgs, ctx: GraphQLContext) =>
          nullIfNotFound(() => products.getProduct(ctx.principal, toId(args.id))),
        // v2's list without its total; a 422 names the GraphQL argument (`filter.price.gte`).
        products: (_: unknown, args: QueryProductsArgs, ctx: GraphQLContext, info: GraphQLResolveInfo) => {
          const q = args.search ?? undefined;
          return products
            .listProducts(ctx.principal, {
              ...pageOf(args),
              parameters: graphqlListParameters(PRODUCT_QUERY_V2, args.filter, undefined).parameters,
              sort: sortOf(args.orderBy),
              grammar: PRODUCT_QUERY_V2,
              count: 'none',
              q,
              // The highlights the selection asks for, read with the page in one statement.
              highlight: q === undefined ? undefined : highlightsRequested(info),
            })
            .then(
              // A searched product carries its score and highlights (`Product.searchScore`, `Product.highlights`).
              (page) =>
                page.items.map((product, i) => ({
                  ...product,
                  searchScore: page.search?.hits[i]?.score ?? null,
                  highlights: page.search?.hits[i]?.highlights,
                })),
              (error: unknown) => {
                throw asGraphqlArguments(error);
              },
            );
        },
        // REST's GET /products/aggregate through the same call: v2's filters, and its `q` as `search`.
        productsAggregate: (_: unknown, args: QueryProductsAggregateArgs, ctx: GraphQLContext) =>
          products
            .aggregate(ctx.principal, aggregateRequestOf(args), {
              parameters: graphqlListParameters(PRODUCT_QUERY_V2, args.filter, undefined).parameters,
              grammar: PRODUCT_QUERY_V2,
              q: args.search ?? undefined,
            })
            .catch((error: unknown) => {
              throw asGraphqlArguments(error, { sort: 'sort' });
            }),
      },
      ProductGroupKey: aggregateKeyResolvers(PRODUCT_AGGREGATES_V2),
      Product: {
        price: (product: Product) => priceOf(product.priceCents),
        highlights: (product: Product & { highlights?: Record<string, string> }, args: ProductHighlightsArgs) =>
          highlightsOf(product, args.fields),
      },
      Mutation: {
        createProduct: (_: unknown, args: MutationCreateProductArgs, ctx: GraphQLContext) =>
          products.createProduct(ctx.principal, { ...args.input }),
        updateProduct: (_: unknown, args: MutationUpdateProductArgs, ctx: GraphQLContext) =>
          withId(args.id, 'Product', (id) => products.updateProduct(ctx.principal, id, { ...args.input })),
        deleteProduct: (_: unknown, args: MutationDeleteProductArgs, ctx: GraphQLContext) =>
          products.deleteProduct(ctx.principal, toId(args.id)),
      },
    },
    batched: {},
  };
}
