import { defineModule, restRoutes, type ModuleDeps } from '../module.ts';
import type { UsersService } from '../users/users.service.ts';
import { meRoutes } from './me.routes.ts';
import { createMeService } from './me.service.ts';

/** `GET /me`: the caller and their rights (DECISIONS §20), for the admin console and any other client. */
export const meModule = defineModule({
  name: 'me',
  createService: ({ services }: ModuleDeps<{ users: UsersService }>) => createMeService(services.users),
  routes: restRoutes(meRoutes, ({ me }) => ({ me })),
});
