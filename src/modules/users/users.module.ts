import { defineModule, restRoutes } from '../module.ts';
import { usersTypeDefs } from './users.graphql.ts';
import { usersResolvers } from './users.resolvers.ts';
import { usersRoutes } from './users.routes.ts';
import { createUsersService } from './users.service.ts';

/** Users: REST `/users`, GraphQL `User`, `user`, `users` and the user mutations. */
export const usersModule = defineModule({
  name: 'users',
  createService: ({ db }) => createUsersService(db),
  routes: restRoutes(usersRoutes, ({ users }) => ({ users })),
  graphql: { typeDefs: usersTypeDefs, resolvers: usersResolvers },
});
