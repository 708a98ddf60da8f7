import { Type, type Static } from 'typebox';
import { Versioned } from '../../core/http/versioning.ts';
import { aggregateAnswerSchema, aggregateParameters } from '../../core/querying/aggregate-schema.ts';
import { PRODUCT_AGGREGATES_V1, PRODUCT_AGGREGATES_V2 } from './products.aggregate.ts';
import { PRODUCT_QUERY_V1, PRODUCT_QUERY_V2 } from './products.query.ts';
import { listProductsQueryOf } from './products.schemas.ts';

/** The list's parameters that are not filters: an aggregate has its own `sort` and `limit`, no page and no highlights (its `q` narrows it). */
const NOT_FILTERS = ['page', 'limit', 'offset', 'sort', 'fields', 'count', 'cursor', 'facets', 'highlight'] as const;

/** `GET /products/aggregate`: the list's filters in a version (the seed's too), then the aggregate's parameters. */
const aggregateQueryOf = (version: 1 | 2) =>
  Type.Object({
    ...Type.Omit(listProductsQueryOf(version === 1 ? PRODUCT_QUERY_V1 : PRODUCT_QUERY_V2, '', []), NOT_FILTERS)
      .properties,
    ...aggregateParameters(version === 1 ? PRODUCT_AGGREGATES_V1 : PRODUCT_AGGREGATES_V2),
  });

export const AggregateProductsQuery = Versioned(aggregateQueryOf(1), aggregateQueryOf(2));
export type AggregateProductsQuery = Static<typeof AggregateProductsQuery>;

export const ProductsAggregate = aggregateAnswerSchema(
  [PRODUCT_AGGREGATES_V1, PRODUCT_AGGREGATES_V2],
  'ProductsAggregate',
);
