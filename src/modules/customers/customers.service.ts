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
  };
}

export type CustomersService = ReturnType<typeof createCustomersService>;
