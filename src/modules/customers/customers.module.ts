import { defineModule, restRoutes } from '../module.ts';
import { customersEmbeds } from './customers.embeds.ts';
import { customersRoutes } from './customers.routes.ts';
import { createCustomersService } from './customers.service.ts';

/** Customers: REST `/customers/{id}`, a user's order count and money spent. */
export const customersModule = defineModule({
  name: 'customers',
  createService: ({ db, config }) => createCustomersService(db, { currency: config.STORE_CURRENCY }),
  routes: restRoutes(customersRoutes, ({ customers }) => ({ customers })),
  embeds: customersEmbeds,
});
