import { requireSignedIn } from '../../core/access/guards.ts';
import { isAdmin, type Principal } from '../../core/access/principal.ts';
import type { Db } from '../../core/db/database.ts';
import { AppError } from '../../core/errors/app-error.ts';
import { decodeCursor, encodeCursor } from '../../core/querying/list-cursor.ts';
import * as repo from './customers.repository.ts';

/** What a customers cursor is made for (the list has no filters or sort to tell apart). */
const CURSOR_FINGERPRINT = 'customers';
const CURSOR_KEYS = [{ type: 'integer', nullable: false }] as const;

export interface CustomerPage {
  items: Customer[];
  nextCursor: string | null;
}

/** A user seen as a customer: who they are and what they have bought. */
export interface Customer {
  id: number;
  name: string;
  /** Null for an erased user (DECISIONS §19). */
  email: string | null;
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
     * Admins: the users who have orders, oldest account first, a page of `limit` after `cursor`
     * (DECISIONS §20's `GET /customers`), each with its order count and money spent (one statement each).
     */
    async listCustomers(actor: Principal | null, request: { limit?: number; cursor?: string }): Promise<CustomerPage> {
      const principal = requireSignedIn(actor);
      if (!isAdmin(principal)) throw AppError.forbidden('Only admins list customers');
      const limit = request.limit ?? 20;
      const after = request.cursor
        ? Number(decodeCursor(request.cursor, CURSOR_FINGERPRINT, CURSOR_KEYS).values[0])
        : 0;
      const rows = await repo.listCustomersAfter(db, after, limit + 1);
      const page = rows.slice(0, limit);
      const sums = page.length
        ? await repo.summariseOrdersOfMany(
            db,
            page.map((row) => row.id),
          )
        : new Map();
      const items = page.map((user) => {
        const sum = sums.get(user.id) ?? { orderCount: 0, spentCents: 0 };
        return { ...user, orderCount: sum.orderCount, totalSpentCents: sum.spentCents, currency: options.currency };
      });
      const last = page.at(-1);
      const nextCursor =
        rows.length > limit && last ? encodeCursor(CURSOR_FINGERPRINT, { values: [last.id], offset: 0 }) : null;
      return { items, nextCursor };
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
