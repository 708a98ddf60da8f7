import { defineAggregateGrammar } from '../../core/querying/aggregate-grammar.ts';
import { centsToAmount } from './order.ts';

/**
 * What `GET /api/orders/aggregate` may measure and group by, and the list's facets (DECISIONS §14),
 * declared once (core/querying/aggregate-grammar.ts). The filters are the list's (orders.query.ts), read
 * the same way, a customer kept to their own orders (orders.service.ts). Grouping by the customer is for
 * administrators, as filtering by them is.
 */
export const ORDER_AGGREGATES = defineAggregateGrammar({
  resource: 'orders',
  measures: { amount: { column: 'amount_cents', fromCents: centsToAmount } },
  groups: {
    status: { column: 'status', type: 'text' },
    currency: { column: 'currency', type: 'text' },
    customerId: { column: 'customer_id', type: 'integer', adminOnly: true },
  },
  timeFields: { createdAt: { column: 'created_at' }, paidAt: { column: 'paid_at' } },
  facets: ['status', 'currency'],
});
