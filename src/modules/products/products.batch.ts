import { writableFieldsOf, type BatchTarget } from '../../core/bulk/batch.ts';
import type { AppError } from '../../core/errors/app-error.ts';
import type { Principal } from '../../core/access/principal.ts';
import { createChecker } from '../../core/validation/ajv.ts';
import type { Product, ProductSingleWrites } from './product.ts';
import { CreateProductInput, UpdateProductInput } from './products.schemas.ts';

/** What a batch needs of the products service: its single writes and the `sku` lookup. */
interface ProductWrites extends ProductSingleWrites {
  createProduct(actor: Principal | null, raw: unknown): Promise<Product>;
  createProducts(actor: Principal | null, raws: readonly unknown[]): Promise<(Product | AppError)[]>;
  findProductBySku(sku: string): Promise<Product | undefined>;
}

const checkCreate = createChecker(CreateProductInput);
const checkUpdate = createChecker(UpdateProductInput);

/** Products in a batch (DECISIONS §18): admin writes (the service checks each); upserts match on `sku`. */
export function productsBatchTarget(products: ProductWrites): BatchTarget<Product> {
  return {
    resource: 'products',
    ops: new Set(['create', 'update', 'upsert', 'delete']),
    adminOnly: false,
    fields: writableFieldsOf(CreateProductInput, UpdateProductInput),
    checkCreate: (data) => void checkCreate(data),
    checkUpdate: (data) => void checkUpdate(data),
    createBody: (_actor, data) => data,
    naturalKey: { field: 'sku', normalize: (sku) => sku, find: (sku) => products.findProductBySku(sku) },
    create: (actor, data) => products.createProduct(actor, data),
    createMany: (actor, data) => products.createProducts(actor, data),
    update: (actor, id, data, precondition) => products.updateProduct(actor, id, data, precondition),
    remove: (actor, id, precondition) => products.deleteProduct(actor, id, precondition),
    idOf: (product) => product.id,
  };
}
