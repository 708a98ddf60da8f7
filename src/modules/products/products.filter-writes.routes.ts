import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { AppError } from '../../core/errors/app-error.ts';
import { servesVersions, Versioned, type ApiVersion } from '../../core/http/versioning.ts';
import { listProductsQueryOf, UpdateProductInput, type ListProductsQuery } from './products.schemas.ts';
import { PRODUCT_QUERY_V1, PRODUCT_QUERY_V2 } from './products.list.ts';
import { PRODUCT_FIELDS, PRODUCT_FIELDS_V2 } from './products.presenter.ts';
import type { ListProductsOptions, ProductsService } from './products.service.ts';

type OptionsOf = (query: ListProductsQuery, version: ApiVersion) => ListProductsOptions;

const DryRun = {
  dryRun: Type.Optional(Type.Boolean({ description: 'Answers `{"affected": N}` and changes nothing' })),
};
const withDryRun = (schema: ReturnType<typeof listProductsQueryOf>) => Type.Object({ ...schema.properties, ...DryRun });
const FilterWriteQuery = Versioned(
  withDryRun(listProductsQueryOf(PRODUCT_QUERY_V1, 'ignored', PRODUCT_FIELDS)),
  withDryRun(listProductsQueryOf(PRODUCT_QUERY_V2, 'ignored', PRODUCT_FIELDS_V2)),
);
const Affected = Type.Object({ affected: Type.Integer() }, { additionalProperties: false });

/** `Prefer: max-affected=N` (RFC 7240 syntax); undefined without it, 422 for a value that is not a count. */
function maxAffectedOf(request: FastifyRequest): number | undefined {
  const header = request.headers.prefer;
  const text = Array.isArray(header) ? header.join(',') : header;
  const match = text ? /(?:^|[,;\s])max-affected\s*=\s*"?([^",;\s]*)"?/i.exec(text) : null;
  if (!match) return undefined;
  const value = Number(match[1]);
  if (!/^\d{1,9}$/.test(match[1]!) || !Number.isSafeInteger(value))
    throw AppError.validation([{ field: 'Prefer', message: 'max-affected must be a whole number' }]);
  return value;
}

const ERRORS = {
  409: {
    description: 'More rows match than `max-affected` (`CONFLICT`, with the count), or a product is in orders',
    code: 'CONFLICT',
    message: 'More rows match than max-affected allows; nothing changed',
  },
  428: {
    description: 'No `Prefer: max-affected=N` (`PRECONDITION_REQUIRED`)',
    code: 'PRECONDITION_REQUIRED',
    message: 'A write by filter needs `Prefer: max-affected=N`',
  },
};

/** Writes by filter are v2's: not in v1's route table, 405 in a negotiated v1 (core/http/versioned-api.ts). */
const VERSIONS = [2] as const;

/**
 * `PATCH` and `DELETE /products?<filters>` (DECISIONS §18, v2, admin): thin handlers over the service's
 * writes by filter, the filters read as the list reads them (`optionsOf`).
 */
export function registerProductFilterWrites(app: FastifyInstance, products: ProductsService, optionsOf: OptionsOf) {
  if (!servesVersions(app, VERSIONS)) return;
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  const readOf = (request: FastifyRequest) => {
    const query = request.query as ListProductsQuery & { dryRun?: boolean };
    return {
      filters: optionsOf(query, request.apiVersion),
      options: { maxAffected: maxAffectedOf(request), dryRun: query.dryRun === true },
    };
  };
  typed.patch(
    '/products',
    {
      config: { access: 'admin', openapi: { errors: ERRORS, versions: VERSIONS } },
      schema: {
        tags: ['products'],
        summary: 'Update every product the filters match (admin, v2; `Prefer: max-affected=N`)',
        querystring: FilterWriteQuery,
        body: UpdateProductInput,
        response: { 200: Affected },
      },
    },
    async (request) => {
      const { filters, options } = readOf(request);
      return products.updateProductsWhere(request.principal, filters, request.body, options);
    },
  );
  typed.delete(
    '/products',
    {
      config: { access: 'admin', openapi: { errors: ERRORS, versions: VERSIONS } },
      schema: {
        tags: ['products'],
        summary: 'Delete every product the filters match (admin, v2; `Prefer: max-affected=N`)',
        querystring: FilterWriteQuery,
        response: { 200: Affected },
      },
    },
    async (request) => {
      const { filters, options } = readOf(request);
      return products.deleteProductsWhere(request.principal, filters, options);
    },
  );
}
