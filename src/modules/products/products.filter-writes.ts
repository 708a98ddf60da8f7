import { requireAdmin } from '../../core/access/guards.ts';
import type { Principal } from '../../core/access/principal.ts';
import type { Db } from '../../core/db/database.ts';
import { inOuterTransaction } from '../../core/db/outer-transaction.ts';
import { AppError } from '../../core/errors/app-error.ts';
import type { ListSettings } from '../../core/querying/list-grammar.ts';
import type { ListQuery } from '../../core/querying/list-query-parse.ts';
import { createChecker } from '../../core/validation/ajv.ts';
import type { ProductSingleWrites } from './product.ts';
import {
  PRODUCT_QUERY_V1,
  PRODUCT_QUERY_V2,
  productListQuery,
  type ProductListRequest,
  readMatchingProductIds,
} from './products.list.ts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { servesVersions, Versioned, type ApiVersion } from '../../core/http/versioning.ts';
import { listProductsQueryOf, UpdateProductInput, type ListProductsQuery } from './products.schemas.ts';
import { PRODUCT_FIELDS, PRODUCT_FIELDS_V2 } from './products.presenter.ts';

/** DECISIONS §18: a write by filter touches at most this many rows (more: an import). */
export const MAX_FILTER_WRITE_ROWS = 10_000;

export interface FilterWriteOptions {
  /** `Prefer: max-affected=N`: required unless `dryRun`. */
  maxAffected?: number | undefined;
  dryRun?: boolean | undefined;
}

const checkUpdate = createChecker(UpdateProductInput);

/** A filter is at least one field filter or a non-empty search; page, limit, sort and `in_stock=false` are not. */
function assertFiltered(query: ListQuery): void {
  if (query.conditions.length === 0 && !query.search)
    throw AppError.validation([
      { field: 'filter', message: 'a write by filter needs at least one filter (field=, field[op]=, q or search)' },
    ]);
}

/**
 * `PATCH` and `DELETE /api/v2/products?<filters>` (DECISIONS §18): the matching rows read and written
 * in one transaction, at most `maxAffected` and never more than MAX_FILTER_WRITE_ROWS: a `PATCH` by the
 * service's list update and a `DELETE` by its list delete (the single `PATCH`'s and `DELETE`'s, of every
 * match at once: the rows, their events and their revisions, and a delete's trash rows, in a few
 * statements per thousand rows).
 */
export function createProductFilterWrites(db: Db, lists: ListSettings, products: ProductSingleWrites) {
  async function writeWhere(
    actor: Principal | null,
    request: ProductListRequest,
    options: FilterWriteOptions,
    write: (ids: readonly number[]) => Promise<unknown>,
  ): Promise<{ affected: number }> {
    requireAdmin(actor);
    const query = productListQuery(actor, request, lists);
    assertFiltered(query);
    if (!options.dryRun && options.maxAffected === undefined)
      throw new AppError('PRECONDITION_REQUIRED', 'A write by filter needs `Prefer: max-affected=N`', {
        details: [{ field: 'Prefer', message: 'max-affected=N is required (or dryRun=true)' }],
      });
    return inOuterTransaction(db, async () => {
      const ids = await readMatchingProductIds(db, query, MAX_FILTER_WRITE_ROWS + 1);
      if (ids.length > MAX_FILTER_WRITE_ROWS)
        throw AppError.validation([
          {
            field: 'filter',
            message: `matches more than ${MAX_FILTER_WRITE_ROWS} rows; narrow the filter or use an import`,
          },
        ]);
      if (options.dryRun) return { affected: ids.length };
      if (ids.length > options.maxAffected!)
        throw AppError.conflict('More rows match than max-affected allows; nothing changed', [
          { field: 'Prefer', message: `${ids.length} rows match; max-affected is ${options.maxAffected}` },
        ]);
      if (ids.length > 0) await write(ids);
      return { affected: ids.length };
    });
  }

  return {
    /** PATCH by filter: `body` as a single PATCH's, checked once before any row. */
    updateProductsWhere(
      actor: Principal | null,
      request: ProductListRequest,
      body: unknown,
      options: FilterWriteOptions,
    ): Promise<{ affected: number }> {
      requireAdmin(actor);
      checkUpdate(body ?? {});
      return writeWhere(actor, request, options, (ids) => products.updateProducts(actor, ids, body));
    },

    /** DELETE by filter: a product still in orders stops the whole write (409), as its single delete would. */
    deleteProductsWhere(
      actor: Principal | null,
      request: ProductListRequest,
      options: FilterWriteOptions,
    ): Promise<{ affected: number }> {
      return writeWhere(actor, request, options, (ids) => products.deleteProducts(actor, ids));
    },
  };
}

type OptionsOf = (query: ListProductsQuery, version: ApiVersion) => ProductListRequest;
/** What the routes call: the service's writes by filter (the service spreads them in). */
type FilterWrites = ReturnType<typeof createProductFilterWrites>;

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
export function registerProductFilterWrites(app: FastifyInstance, products: FilterWrites, optionsOf: OptionsOf) {
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
