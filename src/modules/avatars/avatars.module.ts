import { EVENT_LINK_PREFIX, EVENT_VIEWER } from '../events/event-recorder.ts';
import type { EventsService } from '../events/events.service.ts';
import { defineModule, restRoutes, type ModuleDeps } from '../module.ts';
import { toUserView } from '../users/users.presenter.ts';
import { avatarsRoutes } from './avatars.routes.ts';
import { createAvatarsService, type AvatarEvents } from './avatars.service.ts';

/** Avatars: REST `/users/{id}/avatar`, an uploaded image or a generated SVG. */
export const avatarsModule = defineModule({
  name: 'avatars',
  createService: ({ db, services }: ModuleDeps<{ events: EventsService }>) =>
    createAvatarsService(
      db,
      services.events.recorderFor<AvatarEvents>({
        'user.updated': (user) => toUserView(user, EVENT_LINK_PREFIX, EVENT_VIEWER),
      }),
    ),
  routes: restRoutes(avatarsRoutes, ({ avatars }) => ({ avatars })),
});
