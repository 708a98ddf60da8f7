import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { Id } from '../../core/http/schemas.ts';
import { toCustomerView } from './customers.presenter.ts';
import { CustomerView } from './customers.representation.ts';
import type { CustomersService } from './customers.service.ts';

export const customersRoutes: FastifyPluginAsyncTypebox<{ customers: CustomersService }> = async (
  app,
  { customers },
) => {
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
