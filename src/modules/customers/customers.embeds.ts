import { embedSource, type EmbedCatalogue } from '../../core/querying/embedding-relations.ts';
import { toCustomerView } from './customers.presenter.ts';
import type { Customer, CustomersService } from './customers.service.ts';

/**
 * Where another kind embeds a customer (an order's `customer`): read by id in one batch, only for the
 * customer themselves or an admin, and shown as `GET /customers/{id}` shows it.
 */
export function customersEmbeds({ customers }: { customers: CustomersService }): EmbedCatalogue {
  return {
    customer: {
      source: embedSource<Customer>({
        readByIds: (ids, { viewer }) => customers.findCustomersByIds(viewer, ids),
        present: (customer, { prefix }) => toCustomerView(customer, prefix),
      }),
    },
  };
}
