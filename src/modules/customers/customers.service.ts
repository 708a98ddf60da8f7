import { requireSignedIn } from '../../core/access/guards.ts';
import { isAdmin, type Principal } from '../../core/access/principal.ts';
import type { Db } from '../../core/db/database.ts';
import { AppError } from '../../core/errors/app-error.ts';
import * as repo from './customers.repository.ts';

/** A user seen as a customer: who they are and what they have bought. */
export interface Customer {
  id: number;
  name: string;
  email: string;
  orderCount: number;
  /** The sum of the customer's orders that are paid now: pending, cancelled and refunded ones are not money spent. */
  totalSpentCents: number;
  currency: string;
}

export function createCustomersService(db: Db, options: { currency: string }) {
  return {
    /** The customer themselves or an admin (users are readable by anyone signed in, so 403, not 404). */
    async getCustomer(actor: Principal | null, id: number): Promise<Customer> {
      const principal = requireSignedIn(actor);
      if (!isAdmin(principal) && principal.userId !== id)
        throw AppError.forbidden('You may only read your own customer record');
      const user = await repo.findCustomerById(db, id);
      if (!user) throw AppError.notFound(`Customer ${id}`);
      const { orderCount, spentCents } = await repo.summariseOrdersOf(db, id);
      return { ...user, orderCount, totalSpentCents: spentCents, currency: options.currency };
    },

    /**
     * The customers among `ids` that `viewer` may read (an admin: all; anyone else: themselves), in two
     * statements whatever their number: an order's embedded `customer`. Any order; unknown ids left out.
     */
    async findCustomersByIds(viewer: Principal | null, ids: readonly number[]): Promise<Customer[]> {
      const readable = [...new Set(ids)].filter((id) => isAdmin(viewer) || viewer?.userId === id);
      if (readable.length === 0) return [];
      const [users, sums] = await Promise.all([
        repo.findCustomersByIds(db, readable),
        repo.summariseOrdersOfMany(db, readable),
      ]);
      return users.map((user) => {
        const sum = sums.get(user.id) ?? { orderCount: 0, spentCents: 0 };
        return { ...user, orderCount: sum.orderCount, totalSpentCents: sum.spentCents, currency: options.currency };
      });
    },
  };
}

export type CustomersService = ReturnType<typeof createCustomersService>;
