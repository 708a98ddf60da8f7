import { defineModule, restRoutes } from '../module.ts';
import { avatarsRoutes } from './avatars.routes.ts';
import { createAvatarsService } from './avatars.service.ts';

/** Avatars: REST `/users/{id}/avatar`, an uploaded image or a generated SVG. */
export const avatarsModule = defineModule({
  name: 'avatars',
  createService: ({ db }) => createAvatarsService(db),
  routes: restRoutes(avatarsRoutes, ({ avatars }) => ({ avatars })),
});
