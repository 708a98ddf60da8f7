import { createProductFilterWrites } from './products.filter-writes.ts';
import { withBatch } from '../../core/bulk/batch.ts';
import { productsBatchTarget } from './products.batch.ts';
import { requireAdmin } from '../../core/access/guards.ts';
import type { Principal } from '../../core/access/principal.ts';
import type { Db } from '../../core/db/database.ts';
import { AppError } from '../../core/errors/app-error.ts';
import { pageWindow, type PageRequest } from '../../core/pagination.ts';
import type { Precondition } from '../../core/precondition.ts';
import type { QueriedPage } from '../../core/querying/list-page.ts';
import { DEFAULT_LIST_SETTINGS, type ListSettings } from '../../core/querying/list-grammar.ts';
import type { SearchResults } from '../../core/search/search-results.ts';
import { createChecker } from '../../core/validation/ajv.ts';
import { noEvents, type EventRecorder } from '../events/event-recorder.ts';
import { toProduct, type Product } from './product.ts';
import {
  assertPriceHasCents,
  createProductCreates,
  createProductDeletes,
  createProductUpdates,
  productNotFound,
  type DeleteOptions,
} from './products.writes-many.ts';
import { readProductListRequest, readProductPage, readProductSearchResults } from './products.list.ts';
import { PRODUCT_QUERY_V1, type ProductListRequest } from './products.list.ts';
import { createProductAggregates } from './products.aggregate.ts';
import * as repo from './products.repository.ts';
import { ReplaceProductInput, UpdateProductInput } from './products.schemas.ts';
import type { ProductRow } from './products.table.ts';
import type { TrashEvents } from '../history/trash.representation.ts';
import { createTrash, trashActions, trashRecordOf, type Trash, type TrashFields } from '../history/trash.ts';

/** A products list request (products.list.ts) with its page and the fields to highlight. */
export interface ListProductsOptions extends PageRequest, ProductListRequest {
  /** The fields whose matches `q` marks (DECISIONS §14, core/search). */
  highlight?: string | undefined;
}

/** A page of products; with `q`, each item's score and highlights and, when nothing matched, a suggestion. */
export type ProductPage = QueriedPage<Product> & { search?: SearchResults };

export const PRODUCT_PAGE_RULES = { defaultLimit: 20, maxLimit: 100 };

const checkReplace = createChecker<ReplaceProductInput>(ReplaceProductInput);
const checkUpdate = createChecker<UpdateProductInput>(UpdateProductInput);

const notFound = productNotFound;

export type ProductEvents = {
  'product.created': Product;
  'product.updated': Product;
  'product.deleted': { id: number };
} & TrashEvents;

export function createProductsService(
  db: Db,
  events: EventRecorder<ProductEvents> = noEvents(),
  lists: ListSettings = DEFAULT_LIST_SETTINGS,
  trash: Trash = createTrash({ retentionDays: 30 }),
) {
  const trashed = trashActions(trash, 'product');
  const createProducts = createProductCreates(db, events);
  const changeProducts = createProductUpdates(db, events);
  const deleteProducts = createProductDeletes(db, events, trash);
  /** The single `PATCH`/`PUT`: the list update of one id. */
  async function change(
    actor: Principal | null,
    id: number,
    input: UpdateProductInput,
    precondition?: Precondition<Product>,
  ): Promise<Product> {
    return (await changeProducts(actor, [id], input, precondition))[0]!;
  }

  const aggregates = createProductAggregates(db, lists);
  type ListRead = ReturnType<typeof readProductListRequest>;
  async function pageOf(options: ListProductsOptions, { query, highlight }: ListRead): Promise<ProductPage> {
    const grammar = options.grammar ?? PRODUCT_QUERY_V1;
    const page = await readProductPage(db, grammar, query, pageWindow(options, PRODUCT_PAGE_RULES));
    const searched = await readProductSearchResults(db, query, page.items, highlight);
    return { ...page, items: page.items.map(toProduct), ...(searched ? { search: searched } : {}) };
  }

  const service = withBatch(
    db,
    {
      ...aggregates,

      /**
       * Public: anyone may read the catalogue. A page of products by the list's grammar
       * (products.list.ts): the seed's filters with their meaning, the grammar's `field[op]` filters,
       * the seed's sort, `count` and `cursor`. The plain `category` is the seed's (any text, exact),
       * read with the other seed filters, not as the grammar's equality.
       */
      // async: a bad request rejects (GraphQL maps the rejection to its argument names), never throws.
      async listProducts(actor: Principal | null, options: ListProductsOptions): Promise<ProductPage> {
        return pageOf(options, readProductListRequest(actor, options, lists));
      },

      /** The list with its `facets=`: the page, its search extras and the facets from one read of the request. */
      async listProductsWithFacets(
        actor: Principal | null,
        options: ListProductsOptions,
      ): Promise<[ProductPage, Awaited<ReturnType<typeof aggregates.facets>>]> {
        const read = readProductListRequest(actor, options, lists);
        return Promise.all([pageOf(options, read), aggregates.facetsOfQuery(options, () => read.query)]);
      },

      async getProduct(_actor: Principal | null, id: number): Promise<Product> {
        const row = await repo.findProductById(db, id);
        if (!row) throw notFound(id);
        return toProduct(row);
      },

      /** Products by id in one statement (public, as `getProduct`): an order line's embedded `product`. Any order. */
      /** The product with this `sku`, if any (public, as `getProduct`): the natural key of upserts (DECISIONS §18). */
      async findProductBySku(sku: string): Promise<Product | undefined> {
        const row = await repo.findProductBySku(db, sku);
        return row ? toProduct(row) : undefined;
      },

      async findProductsByIds(ids: readonly number[]): Promise<Product[]> {
        return (await repo.findProductsByIds(db, [...new Set(ids)])).map(toProduct);
      },

      /** `POST /products`: the list create (products.writes-many.ts) of one body. */
      async createProduct(actor: Principal | null, raw: unknown): Promise<Product> {
        const [answer] = await createProducts(actor, [raw]);
        if (answer instanceof AppError) throw answer;
        return answer!;
      },

      /** Many bodies, each written or refused alone (products.writes-many.ts): an import's chunk, a batch's creates. */
      createProducts,

      /** PUT: every field is set; an absent image or description becomes null. */
      replaceProduct(
        actor: Principal | null,
        id: number,
        raw: unknown,
        precondition?: Precondition<Product>,
      ): Promise<Product> {
        requireAdmin(actor);
        const input = assertPriceHasCents(checkReplace(raw));
        return change(
          actor,
          id,
          { ...input, image: input.image ?? null, description: input.description ?? null, sku: input.sku ?? null },
          precondition,
        );
      },

      /**
       * `PATCH` of each of `ids` (a write by filter's matches) with one body, in one transaction, all or
       * nothing (products.writes-many.ts): each row as its single `PATCH` would write it.
       */
      updateProducts(actor: Principal | null, ids: readonly number[], raw: unknown): Promise<Product[]> {
        requireAdmin(actor);
        return changeProducts(actor, ids, assertPriceHasCents(checkUpdate(raw ?? {})));
      },

      /** PATCH: only the fields sent change; `{}` changes nothing. */
      updateProduct(
        actor: Principal | null,
        id: number,
        raw: unknown,
        precondition?: Precondition<Product>,
      ): Promise<Product> {
        requireAdmin(actor);
        return change(actor, id, assertPriceHasCents(checkUpdate(raw ?? {})), precondition);
      },

      /**
       * Moves the product to the trash, or with `permanent` removes it at once, live or trashed (DECISIONS
       * §19). Refused with 409 while order items refer to it (orders are financial records). The list
       * delete of one id.
       */
      async deleteProduct(
        actor: Principal | null,
        id: number,
        precondition?: Precondition<Product>,
        options: DeleteOptions = {},
      ): Promise<boolean> {
        return (await deleteProducts(actor, [id], precondition, options))[0]!;
      },

      /** DELETE of each of `ids` (a write by filter's matches) in one transaction, all or nothing (products.writes-many.ts). */
      deleteProducts,

      /** `POST /products/{id}/restore` (admins). */
      async restoreProduct(actor: Principal | null, id: number): Promise<Product> {
        const principal = requireAdmin(actor);
        return events.transaction(db, async (trx) => {
          const live = (await repo.lockProductById(trx, id)) !== undefined;
          return toProduct((await trashed.restore(trx, principal, id, live, trashRecordOf(events, trx))) as ProductRow);
        });
      },

      /** `GET /products/{id}?trashed=include` (admins): the product, live or in the trash. */
      async getProductOrTrashed(actor: Principal | null, id: number): Promise<Product & Partial<TrashFields>> {
        const principal = requireAdmin(actor);
        const row = await repo.findProductById(db, id);
        if (row) return toProduct(row);
        const found = await trashed.read(db, principal, id);
        return { ...toProduct(found.row as ProductRow), ...found.trash };
      },

      /** `GET /products?trashed=only` (admins): the trash of products, most recently deleted first. */
      async listTrashedProducts(
        actor: Principal | null,
        options: { limit?: number | undefined; cursor?: string | undefined },
      ) {
        const principal = requireAdmin(actor);
        const { limit } = pageWindow({ limit: options.limit }, PRODUCT_PAGE_RULES);
        const page = await trashed.list(db, principal, { limit, cursor: options.cursor });
        return {
          items: page.items.map((item) => ({ ...toProduct(item.row as ProductRow), ...item.trash })),
          nextCursor: page.nextCursor,
          limit,
        };
      },
    },
    productsBatchTarget,
  );
  return { ...service, ...createProductFilterWrites(db, lists, service) };
}

export type ProductsService = ReturnType<typeof createProductsService>;
