import { toOne, type EmbedCatalogue } from '../../core/querying/embedding-relations.ts';
import type { toOrderView } from './orders.presenter.ts';

type OrderView = ReturnType<typeof toOrderView>;
type OrderItemView = OrderView['items'][number];

/**
 * What `include` embeds of an order (DECISIONS §12): its customer (only for the customer themselves or
 * an admin, as `GET /customers/{id}`), and each line's product in the line (`items.product`).
 */
export function ordersEmbeds(): EmbedCatalogue {
  return {
    order: {
      relations: {
        customer: toOne('customer', (order: OrderView) => order.customerId),
        // The lines are part of the order already: `items` is only the step to their products.
        items: {
          target: 'orderItem',
          inPlace: true,
          load: async (orders) => (orders as OrderView[]).map((o) => o.items),
        },
      },
    },
    orderItem: {
      relations: { product: toOne('product', (item: OrderItemView) => item.productId) },
    },
  };
}
