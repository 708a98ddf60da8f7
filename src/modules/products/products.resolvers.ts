import { ASCENDING, DESCENDING } from '../../core/db/sort-direction.ts';
import type { GraphQLResolveInfo } from 'graphql';
import { aggregateKeyResolvers, aggregateRequestOf } from '../../core/querying/aggregate-graphql.ts';
import { asGraphqlArguments, graphqlListParameters } from '../../core/querying/list-graphql.ts';
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
import { priceOf } from './money.ts';
import type { Product, ProductSort } from './product.ts';
import { PRODUCT_AGGREGATES_V2 } from './products.aggregate.ts';
import { PRODUCT_QUERY_V2 } from './products.query.ts';
import type { ProductsService } from './products.service.ts';

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
