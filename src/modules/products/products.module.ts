import { embedSource, type EmbedCatalogue } from '../../core/querying/embedding-relations.ts';
import { listSettingsOf } from '../../core/querying/list-grammar.ts';
import { EVENT_LINK_PREFIX } from '../events/event-recorder.ts';
import type { EventsService } from '../events/events.service.ts';
import type { EventPayloadsOf } from '../events/event-payloads.ts';
import { TRASH_EVENT_VIEWS, type TrashEvents } from '../history/trash.representation.ts';
import { createTrash } from '../history/trash.ts';
import { defineModule, restRoutes, type ModuleDeps } from '../module.ts';
import { productsResolvers, productsTypeDefs } from './products.graphql.ts';
import { toProductView } from './products.presenter.ts';
import { productsMigrations } from './products.migrations.ts';
import { productsRoutes } from './products.routes.ts';
import { DeletedProduct, ProductViewV2 } from './products.schemas.ts';
import { createProductsService, type ProductEvents, type ProductsService } from './products.service.ts';
import type { Product } from './product.ts';

/** Where another kind embeds a product (an order line's `product`): read by id in one batch, shown in the request's version. */
export function productsEmbeds({ products }: { products: ProductsService }): EmbedCatalogue {
  return {
    product: {
      source: embedSource<Product>({
        readByIds: (ids) => products.findProductsByIds(ids),
        present: (product, { prefix, version }) => toProductView(product, prefix, version),
      }),
    },
  };
}

/** Products: REST `/products` and GraphQL `Product`, the catalogue with its filters, sorts and exact counts. */
export const productsModule = defineModule({
  name: 'products',
  createService: ({ db, config, services }: ModuleDeps<{ events: EventsService }>) =>
    createProductsService(
      db,
      services.events.recorderFor<ProductEvents>({
        'product.created': (product) => toProductView(product, EVENT_LINK_PREFIX, 2),
        'product.updated': (product) => toProductView(product, EVENT_LINK_PREFIX, 2),
        'product.deleted': (deleted) => deleted,
        ...TRASH_EVENT_VIEWS,
      }),
      listSettingsOf(config),
      createTrash({ retentionDays: config.TRASH_RETENTION_DAYS }),
    ),
  routes: restRoutes(productsRoutes, ({ products, idempotency }) => ({ products, idempotency })),
  migrations: productsMigrations,
  graphql: { typeDefs: productsTypeDefs, resolvers: productsResolvers },
  embeds: productsEmbeds,
  // Events carry the v2 view whatever version made the change: the fixed v2 shape, not the versioned one.
  eventPayloads: {
    'product.created': ProductViewV2,
    'product.updated': ProductViewV2,
    'product.deleted': DeletedProduct,
  } satisfies EventPayloadsOf<Omit<ProductEvents, keyof TrashEvents>>,
});
