import { createPollingWorker } from '../../core/jobs/polling-worker.ts';
import { defineModule, restRoutes, type ModuleDeps } from '../module.ts';
import type { PostsService } from '../posts/posts.service.ts';
import type { ProductsService } from '../products/products.service.ts';
import type { UsersService } from '../users/users.service.ts';
import { importsMigrations } from './imports.migrations.ts';
import { importsRoutes } from './imports.routes.ts';
import { createImportsService, type ImportsService } from './imports.service.ts';

/**
 * Imports (DECISIONS §18): uploads stored as jobs that the workers (§16) run in chunks, each row
 * through its resource's own single write (the same batch targets as `POST /{resource}/batch`).
 */
export const importsModule = defineModule({
  name: 'imports',
  createService: ({
    db,
    config,
    services,
  }: ModuleDeps<{ products: ProductsService; users: UsersService; posts: PostsService }>) =>
    createImportsService(
      db,
      {
        products: services.products.batchTarget as never,
        users: services.users.batchTarget as never,
        posts: services.posts.batchTarget as never,
      },
      {
        maxBytes: config.IMPORT_MAX_BYTES,
        uploadTimeoutMs: config.IMPORT_UPLOAD_TIMEOUT_MS,
        leaseMs: config.IMPORT_LEASE_MS,
        chunkRows: config.IMPORT_CHUNK_ROWS,
        maxAttempts: config.IMPORT_MAX_ATTEMPTS,
        retryMs: config.IMPORT_POLL_MS,
        yieldToApi: config.IMPORT_YIELD,
        lanes: config.IMPORT_LANES,
      },
    ),
  routes: restRoutes(importsRoutes, ({ imports }) => ({ imports })),
  migrations: importsMigrations,
  workers: ({ imports }: { imports: ImportsService }, { config, log }) => [
    createPollingWorker({
      name: 'imports',
      intervalMs: config.IMPORT_POLL_MS,
      log,
      step: (id) => imports.runNextChunk(id),
    }),
  ],
});
