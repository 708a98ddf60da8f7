import { defineModule, restRoutes } from '../module.ts';
import { postsTypeDefs } from './posts.graphql.ts';
import { postsResolvers } from './posts.resolvers.ts';
import { postsRoutes } from './posts.routes.ts';
import { createPostsService } from './posts.service.ts';

/** Posts: REST `/posts` and `/users/{id}/posts`, GraphQL `Post`, `post`, `posts` and `createPost`. */
export const postsModule = defineModule({
  name: 'posts',
  createService: ({ db }) => createPostsService(db),
  routes: restRoutes(postsRoutes, ({ posts }) => ({ posts })),
  graphql: { typeDefs: postsTypeDefs, resolvers: postsResolvers },
});
