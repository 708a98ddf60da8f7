import { defineModule, restRoutes, type ModuleDeps } from '../module.ts';
import { bulkRoutes } from './bulk.routes.ts';
import { createBulkService, type BulkDeps } from './bulk.service.ts';

/** Data in bulk (DECISIONS §18): batches over the products', users' and posts' own services. */
export const bulkModule = defineModule({
  name: 'bulk',
  createService: ({ db, services }: ModuleDeps<BulkDeps>) => createBulkService(db, services),
  routes: restRoutes(bulkRoutes, ({ bulk, idempotency }) => ({ bulk, idempotency })),
});
