import { requireSignedIn } from '../../core/access/guards.ts';
import { isAdmin, type Principal } from '../../core/access/principal.ts';
import type { Db } from '../../core/db/database.ts';
import { parseAggregate, parseFacets, type AggregateRequest } from '../../core/querying/aggregate-parse.ts';
import type { AggregateResult, FacetValue } from '../../core/querying/aggregate-answer.ts';
import type { ListOptions, ListQuery } from '../../core/querying/list-query-parse.ts';
import { ORDER_AGGREGATES } from './orders.aggregate.ts';
import * as repo from './orders.repository.ts';

/** How the orders service reads a list request as a caller may make it (its customer scope and 403s). */
type ListQueryFor = (principal: Principal, options: ListOptions) => ListQuery;

/**
 * Aggregates and facets of orders (DECISIONS §14), part of the orders service. Both read their
 * conditions through the list's own reading (`listQueryFor`), so a customer aggregates and counts only
 * their own orders, exactly the ones their list shows.
 */
export function createOrderAggregates(db: Db, listQueryFor: ListQueryFor) {
  return {
    /**
     * `GET /orders/aggregate`: the groups of the orders the list's filters (`filters`, any of the list's
     * parameters) match. Takes the aggregate's parameters as REST or GraphQL hand them over.
     */
    async aggregate(
      actor: Principal | null,
      request: AggregateRequest,
      filters: Readonly<Record<string, unknown>> = {},
    ): Promise<AggregateResult> {
      const principal = requireSignedIn(actor);
      // The aggregate's `sort` orders groups; the list's page parameters mean nothing here.
      const query = listQueryFor(principal, { ...filters, sort: undefined, count: undefined, cursor: undefined });
      const aggregate = parseAggregate(ORDER_AGGREGATES, request, { admin: isAdmin(principal) });
      return repo.aggregateOrders(db, query.conditions, aggregate);
    },

    /** `facets=status,currency` of the orders list: undefined when none is asked for. */
    async facets(actor: Principal | null, options: ListOptions): Promise<Record<string, FacetValue[]> | undefined> {
      const principal = requireSignedIn(actor);
      const names = parseFacets(ORDER_AGGREGATES, options.facets as string | readonly string[] | undefined);
      if (names.length === 0) return undefined;
      return repo.countOrderFacets(db, listQueryFor(principal, options).conditions, names);
    },
  };
}
