import { relatedById, type EmbedCatalogue } from '../../core/querying/embedding.ts';
import { toCustomerView } from '../customers/customers.presenter.ts';
import type { CustomersService } from '../customers/customers.service.ts';
import { toProductView } from '../products/products.presenter.ts';
import type { ProductsService } from '../products/products.service.ts';
import type { toOrderView } from './orders.presenter.ts';

type OrderView = ReturnType<typeof toOrderView>;
type OrderItemView = OrderView['items'][number];

/**
 * What `include` embeds of an order (DECISIONS §12): its customer (only for the customer themselves or
 * an admin, as `GET /customers/{id}`), and each line's product in the line (`items.product`).
 */
export function ordersEmbeds({
  customers,
  products,
}: {
  customers: CustomersService;
  products: ProductsService;
}): EmbedCatalogue {
  return {
    order: {
      customer: relatedById({
        target: 'customer',
        keyOf: (order: OrderView) => order.customerId,
        readByIds: (ids, { viewer }) => customers.findCustomersByIds(viewer, ids),
        present: (customer, { prefix }) => toCustomerView(customer, prefix),
      }),
      // The lines are part of the order already: `items` is only the step to their products.
      items: {
        target: 'orderItem',
        inPlace: true,
        load: async (orders) => (orders as OrderView[]).map((o) => o.items),
      },
    },
    orderItem: {
      product: relatedById({
        target: 'product',
        keyOf: (item: OrderItemView) => item.productId,
        readByIds: (ids) => products.findProductsByIds(ids),
        present: (product, { prefix, version }) => toProductView(product, prefix, version),
      }),
    },
  };
}
