import { registerBatchRoute } from '../../core/bulk/batch.http.ts';
import type { IdempotencyStore } from '../../core/idempotency/idempotency.store.ts';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../../core/errors/app-error.ts';
import { ifMatchPrecondition } from '../../core/http/caching.ts';
import { Id } from '../../core/http/schemas.ts';
import type { ApiVersion } from '../../core/http/versioning.ts';
import { pageWindow, parseFields } from '../../core/pagination.ts';
import type { Precondition } from '../../core/precondition.ts';
import { queriedPaginationOf } from '../../core/querying/list-page.ts';
import { type Product, parseProductSort } from './product.ts';
import {
  PRODUCT_SORTS,
  PRODUCT_SORTS_V2,
  productFields,
  toProductListItem,
  toProductView,
} from './products.presenter.ts';
import {
  CreateProductInput,
  ListProductsQuery,
  ProductByIdQuery,
  ProductList,
  ProductView,
  ReplaceProductInput,
  UpdateProductInput,
} from './products.schemas.ts';
import { PRODUCT_QUERY_V1, PRODUCT_QUERY_V2 } from './products.list.ts';
import { PRODUCT_PAGE_RULES, type ListProductsOptions, type ProductsService } from './products.service.ts';
import { includedListAnswer, includedPagination } from '../history/trash-include.ts';
import { registerProductsAggregateRoute } from './products.aggregate.routes.ts';
import { registerProductFilterWrites } from './products.filter-writes.ts';
import { PermanentParameter, restoreRouteOptions } from '../history/trash.representation.ts';
import { listWeightWithFacets } from '../../core/querying/aggregate-grammar.ts';

const ProductParams = Type.Object({ productId: Id });
const tags = ['products'];
/** What an admin sees of the trash is theirs alone: never kept by a shared cache. */
const TRASH_CACHE_CONTROL = 'private, no-store';
/** A write that gives a product the `sku` another has (DECISIONS §18), in the documents of the writes that can. */
const SKU_TAKEN = {
  409: {
    description: 'Another product has this `sku` (`CONFLICT`)',
    code: 'CONFLICT',
    message: 'Another product has this sku',
  },
};

/** A write's `If-Match` precondition: compared with the product as `GET /products/:productId` presents it in the request's version. */
const ifMatchOf = (request: FastifyRequest, reply: FastifyReply): Precondition<Product> | undefined =>
  ifMatchPrecondition(request, reply, ProductView, (p: Product) =>
    toProductView(p, request.apiPrefix, request.apiVersion),
  );

/**
 * Public reads are the same for every caller, so shared caches may keep them for a minute and
 * need not key them by `Authorization` (the /api default Vary, set before this route-level hook).
 */
const publicRead = { access: 'public', cacheControl: 'public, max-age=60' } as const;
async function varyWithoutAuthorization(_request: FastifyRequest, reply: FastifyReply, payload: unknown) {
  if (reply.statusCode < 400) reply.header('vary', 'Accept, API-Version');
  return payload;
}

/** Translates the query names into the service's options (the seed's rules for `in_stock` and `sort`). */
function listOptionsOf(query: ListProductsQuery, version: ApiVersion): ListProductsOptions {
  return {
    page: query.page,
    limit: query.limit,
    offset: query.offset,
    category: query.category,
    minPrice: query.min_price,
    maxPrice: query.max_price,
    inStock: String(query.in_stock) === 'true',
    search: query.search,
    sort: parseProductSort(query.sort, version === 1 ? PRODUCT_SORTS : PRODUCT_SORTS_V2),
    count: query.count,
    cursor: query.cursor,
    parameters: query,
    grammar: version === 1 ? PRODUCT_QUERY_V1 : PRODUCT_QUERY_V2,
    q: query.q,
    highlight: query.highlight,
  };
}

/** REST adapter for products: each handler is a thin call into the products service. */
export const productsRoutes: FastifyPluginAsyncTypebox<{
  products: ProductsService;
  idempotency: IdempotencyStore;
}> = async (app, { products, idempotency }) => {
  // DECISIONS §18: admins' batches over the same service calls; upserts by `sku`.
  registerBatchRoute(app, {
    resource: 'products',
    access: 'admin',
    batch: products.batch,
    idempotency,
    schema: ProductView,
    view: (product, request) => toProductView(product, request.apiPrefix, request.apiVersion),
  });
  app.get(
    '/products',
    {
      config: {
        ...publicRead,
        rateLimitWeight: (request) => listWeightWithFacets((request.query as { facets?: unknown } | undefined)?.facets),
      },
      onSend: varyWithoutAuthorization,
      schema: {
        tags,
        summary: 'List products (filtered, sorted, paginated)',
        querystring: ListProductsQuery,
        response: { 200: ProductList },
      },
    },
    async (request, reply) => {
      const version = request.apiVersion;
      const view = (product: Product) => toProductView(product, request.apiPrefix, version);
      if (request.query.trashed) reply.header('cache-control', TRASH_CACHE_CONTROL);
      if (request.query.trashed === 'only') {
        const trashed = await products.listTrashedProducts(request.principal, request.query);
        return { data: trashed.items.map(view), pagination: includedPagination(trashed) };
      }
      if (request.query.trashed === 'include') {
        const query = { ...request.query, trashed: undefined, page: undefined, count: 'none' as const };
        return includedListAnswer({
          principal: request.principal,
          resource: 'product',
          cursor: request.query.cursor,
          page: request.query.page,
          limit: pageWindow({ limit: query.limit }, PRODUCT_PAGE_RULES).limit,
          live: (cursor) => products.listProducts(request.principal, listOptionsOf({ ...query, cursor }, version)),
          trash: (cursor, limit) => products.listTrashedProducts(request.principal, { limit, cursor }),
          view,
        });
      }
      const fields = parseFields(request.query.fields, productFields(version));
      const options = listOptionsOf(request.query, version);
      const [page, facets] = await products.listProductsWithFacets(request.principal, options);
      return {
        data: page.items.map((p, i) => ({
          ...toProductListItem(p, request.apiPrefix, fields, version),
          ...(page.search ? { _search: page.search.hits[i] } : {}),
        })),
        pagination: queriedPaginationOf(page),
        ...(page.search && 'suggestion' in page.search ? { suggestion: page.search.suggestion } : {}),
        ...(facets ? { facets: facets.facets, ...(facets.estimated ? { facetsEstimated: true } : {}) } : {}),
      };
    },
  );

  registerProductsAggregateRoute(app, products, listOptionsOf, { onSend: varyWithoutAuthorization });
  registerProductFilterWrites(app, products, listOptionsOf);

  app.get(
    '/products/:productId',
    {
      config: publicRead,
      onSend: varyWithoutAuthorization,
      schema: {
        tags,
        summary: 'Read a product (conditional requests supported; `trashed=include`: in the trash too, admins)',
        params: ProductParams,
        querystring: ProductByIdQuery,
        response: { 200: ProductView },
      },
    },
    async (request, reply) => {
      const { productId } = request.params;
      if (request.query.trashed === 'include') reply.header('cache-control', TRASH_CACHE_CONTROL);
      const product =
        request.query.trashed === 'include'
          ? await products.getProductOrTrashed(request.principal, productId)
          : await products.getProduct(request.principal, productId);
      return toProductView(product, request.apiPrefix, request.apiVersion);
    },
  );

  app.post(
    '/products/:productId/restore',
    restoreRouteOptions({
      access: 'admin',
      tags,
      summary: 'Restore a product from the trash (admin)',
      params: ProductParams,
      view: ProductView,
    }),
    async (request) =>
      toProductView(
        await products.restoreProduct(request.principal, request.params.productId),
        request.apiPrefix,
        request.apiVersion,
      ),
  );

  app.post(
    '/products',
    {
      config: { access: 'admin', openapi: { errors: SKU_TAKEN } },
      schema: { tags, summary: 'Create a product (admin)', body: CreateProductInput, response: { 201: ProductView } },
    },
    async (request, reply) => {
      const view = toProductView(
        await products.createProduct(request.principal, request.body),
        request.apiPrefix,
        request.apiVersion,
      );
      return reply.code(201).header('location', view._links.self.href).send(view);
    },
  );

  app.put(
    '/products/:productId',
    {
      config: { access: 'admin', openapi: { ifMatch: true, errors: SKU_TAKEN } },
      schema: {
        tags,
        summary: 'Replace a product (admin)',
        params: ProductParams,
        body: ReplaceProductInput,
        response: { 200: ProductView },
      },
    },
    async (request, reply) => {
      const product = await products.replaceProduct(
        request.principal,
        request.params.productId,
        request.body,
        ifMatchOf(request, reply),
      );
      return toProductView(product, request.apiPrefix, request.apiVersion);
    },
  );

  app.patch(
    '/products/:productId',
    {
      config: { access: 'admin', openapi: { ifMatch: true, errors: SKU_TAKEN } },
      schema: {
        tags,
        summary: 'Update some fields of a product (admin)',
        params: ProductParams,
        body: UpdateProductInput,
        response: { 200: ProductView },
      },
    },
    async (request, reply) => {
      const product = await products.updateProduct(
        request.principal,
        request.params.productId,
        request.body,
        ifMatchOf(request, reply),
      );
      return toProductView(product, request.apiPrefix, request.apiVersion);
    },
  );

  app.delete(
    '/products/:productId',
    {
      config: {
        access: 'admin',
        openapi: {
          ifMatch: true,
          errors: {
            409: {
              description: 'An order still refers to the product (`CONFLICT`)',
              code: 'CONFLICT',
              message: 'Product 7 is in orders and cannot be deleted',
            },
          },
        },
      },
      schema: {
        tags,
        summary:
          'Move a product that no order refers to to the trash, or remove it for good (`permanent=true`) (admin)',
        params: ProductParams,
        querystring: PermanentParameter,
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      const deleted = await products.deleteProduct(
        request.principal,
        request.params.productId,
        ifMatchOf(request, reply),
        { permanent: request.query.permanent },
      );
      if (!deleted) throw AppError.notFound(`Product ${request.params.productId}`);
      return reply.code(204).send(null);
    },
  );
};
