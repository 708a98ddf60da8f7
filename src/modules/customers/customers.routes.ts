import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { Id } from '../../core/http/schemas.ts';
import { toCustomerView } from './customers.presenter.ts';
import { CustomerPage, CustomersQuery, CustomerView } from './customers.representation.ts';
import type { CustomersService } from './customers.service.ts';

export const customersRoutes: FastifyPluginAsyncTypebox<{ customers: CustomersService }> = async (
  app,
  { customers },
) => {
  app.get(
    '/customers',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['orders'],
        summary: 'List the users who have orders (admin), with order count and money spent',
        querystring: CustomersQuery,
        response: { 200: CustomerPage },
      },
    },
    async (request) => {
      const page = await customers.listCustomers(request.principal, request.query);
      return {
        data: page.items.map((customer) => toCustomerView(customer, request.apiPrefix)),
        nextCursor: page.nextCursor,
      };
    },
  );

  app.get(
    '/customers/:customerId',
    {
      config: { access: 'user' },
      schema: {
        tags: ['orders'],
        summary: 'A user as a customer: order count and money spent',
        params: Type.Object({ customerId: Id }),
        response: { 200: CustomerView },
      },
    },
    async (request) =>
      toCustomerView(await customers.getCustomer(request.principal, request.params.customerId), request.apiPrefix),
  );
};
