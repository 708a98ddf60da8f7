import { defineModule, restRoutes } from '../module.ts';
import { commentsTypeDefs } from './comments.graphql.ts';
import { commentsResolvers } from './comments.resolvers.ts';
import { commentsRoutes } from './comments.routes.ts';
import { createCommentsService } from './comments.service.ts';

/** Comments: REST `/posts/{id}/comments`, GraphQL `Comment`. */
export const commentsModule = defineModule({
  name: 'comments',
  createService: ({ db }) => createCommentsService(db),
  routes: restRoutes(commentsRoutes, ({ comments }) => ({ comments })),
  graphql: { typeDefs: commentsTypeDefs, resolvers: commentsResolvers },
});
