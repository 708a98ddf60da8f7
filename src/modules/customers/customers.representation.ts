import { Type } from 'typebox';
import { Link, Named } from '../../core/http/schemas.ts';

/** A customer's REST representation: what `GET /customers/{id}` answers and what an order embeds. */
export const CustomerView = Named(
  'Customer',
  Type.Object({
    id: Type.Integer(),
    name: Type.String(),
    email: Type.String(),
    orderCount: Type.Integer(),
    totalSpent: Type.Number({ description: 'Sum of the paid (not refunded) orders, at most two decimals' }),
    currency: Type.String(),
    _links: Type.Object({ self: Link, orders: Link }),
  }),
);
