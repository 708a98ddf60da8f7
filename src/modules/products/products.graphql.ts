import { graphqlAggregateArguments, graphqlAggregateTypeDefs } from '../../core/querying/aggregate-graphql.ts';
import { graphqlListTypeDefs } from '../../core/querying/list-graphql.ts';
import type { FieldRule } from '../../core/querying/list-grammar.ts';
import { PRODUCT_AGGREGATES_V2 } from './products.aggregate.ts';
import { PRODUCT_QUERY_V2 } from './products.query.ts';

/** The fields the list sorts by: the seed's whitelist (product-sort.ts), not every field the grammar filters. */
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

/** The products slice of the GraphQL schema (composed in graphql/schema.ts); resolvers in products.resolvers.ts. */
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
