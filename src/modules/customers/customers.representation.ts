import { Type } from 'typebox';
import { Link, Named } from '../../core/http/schemas.ts';

/** A customer's REST representation: what `GET /customers/{id}` answers and what an order embeds. */
export const CustomerView = Named(
  'Customer',
  Type.Object({
    id: Type.Integer(),
    name: Type.String(),
    email: Type.Union([Type.String(), Type.Null()], { description: 'Null for an erased user (DECISIONS §19)' }),
    orderCount: Type.Integer(),
    totalSpent: Type.Number({ description: 'Sum of the paid (not refunded) orders, at most two decimals' }),
    currency: Type.String(),
    _links: Type.Object({ self: Link, orders: Link }),
  }),
);

/** `GET /customers`: a cursor list (DECISIONS §20), the envelope of the other cursor lists. */
export const CustomerPage = Named(
  'CustomerPage',
  Type.Object({
    data: Type.Array(CustomerView),
    nextCursor: Type.Union([Type.String(), Type.Null()], { description: 'The next page, or null on the last' }),
  }),
);

export const CustomersQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Customers per page, default 20' })),
    cursor: Type.Optional(Type.String({ maxLength: 200, description: "The previous page's `nextCursor`" })),
  },
  { additionalProperties: false },
);
