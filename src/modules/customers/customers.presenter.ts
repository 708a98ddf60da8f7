import type { Customer } from './customers.service.ts';

/** The REST representation: money as a JSON number, links to itself and to the customer's orders. */
export function toCustomerView(customer: Customer, prefix: string) {
  const { totalSpentCents, ...rest } = customer;
  return {
    ...rest,
    totalSpent: totalSpentCents / 100,
    _links: {
      self: { href: `${prefix}/customers/${customer.id}` },
      orders: { href: `${prefix}/orders?customerId=${customer.id}` },
    },
  };
}
