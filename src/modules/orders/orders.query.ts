import { defineListGrammar, type FilterValue } from '../../core/querying/list-grammar.ts';
import { ORDER_STATUSES } from './order.ts';

/** An amount in currency units as the cents it is stored in; none for a fraction of a cent. */
function toCents(value: FilterValue): number | undefined {
  const cents = Math.round(Number(value) * 100);
  return Number.isSafeInteger(cents) && Math.abs(cents - Number(value) * 100) < 1e-6 ? cents : undefined;
}

/** Why an amount has no cents value: the fix a 422 names. */
function centsError(value: FilterValue): string {
  return Number.isSafeInteger(Math.round(Number(value) * 100))
    ? 'must have at most two decimals (whole cents), e.g. 19.99'
    : 'is beyond the largest amount';
}

/**
 * What a client may filter and sort the orders list by (DECISIONS §12), declared once (core/querying).
 * Newest first unless sorted otherwise; ties break by id in the direction of the first key (the seed's
 * newest first reversed the ids too). `status` and `customerId` keep the seed's equality parameters;
 * the service keeps a customer to their own orders (other customers' are for administrators).
 * Indexes: migration 0001, 0005 and orders.migrations.ts.
 */
export const ORDER_QUERY = defineListGrammar({
  resource: 'orders',
  tieBreak: 'follow',
  defaultSort: '-createdAt',
  seedParameters: ['status', 'customerId'],
  fields: {
    id: { column: 'id', type: 'integer', operators: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in'] },
    status: { column: 'status', type: 'enum', values: ORDER_STATUSES },
    currency: { column: 'currency', type: 'text', operators: ['eq', 'ne', 'in'] },
    amount: {
      column: 'amount_cents',
      type: 'number',
      encode: toCents,
      encodeError: centsError,
      description: 'in currency units',
    },
    createdAt: { column: 'created_at', type: 'timestamp' },
    paidAt: { column: 'paid_at', type: 'timestamp', nullable: true },
    customerId: { column: 'customer_id', type: 'integer', operators: ['eq', 'ne', 'in'] },
  },
});
