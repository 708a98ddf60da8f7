import { defineModule, restRoutes } from '../module.ts';
import { likesRoutes } from './likes.routes.ts';
import { createLikesService } from './likes.service.ts';

/** Likes: REST `/comments/{id}/likes`. */
export const likesModule = defineModule({
  name: 'likes',
  createService: ({ db }) => createLikesService(db),
  routes: restRoutes(likesRoutes, ({ likes }) => ({ likes })),
});
