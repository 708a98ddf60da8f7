import { defineModule, restRoutes } from '../module.ts';
import { productsMigrations } from './products.migrations.ts';
import { productsRoutes } from './products.routes.ts';
import { createProductsService } from './products.service.ts';

/** Products: REST `/products`, the catalogue with its filters, sorts and exact counts. */
export const productsModule = defineModule({
  name: 'products',
  createService: ({ db }) => createProductsService(db),
  routes: restRoutes(productsRoutes, ({ products }) => ({ products })),
  migrations: productsMigrations,
});
