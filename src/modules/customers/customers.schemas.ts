import { Type } from 'typebox';
import { Link } from '../../core/http/schemas.ts';

export const CustomerView = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  email: Type.String(),
  orderCount: Type.Integer(),
  totalSpent: Type.Number({ description: 'Sum of the paid (not refunded) orders, at most two decimals' }),
  currency: Type.String(),
  _links: Type.Object({ self: Link, orders: Link }),
});
