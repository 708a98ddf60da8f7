import { embedSource, type EmbedCatalogue } from '../../core/querying/embedding-relations.ts';
import type { Product } from './product.ts';
import { toProductView } from './products.presenter.ts';
import type { ProductsService } from './products.service.ts';

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
