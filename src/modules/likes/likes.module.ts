import { listSettingsOf } from '../../core/querying/list-grammar.ts';
import { EVENT_LINK_PREFIX } from '../events/event-recorder.ts';
import type { EventsService } from '../events/events.service.ts';
import type { EventPayloadsOf } from '../events/event-payloads.ts';
import { defineModule, restRoutes, type ModuleDeps } from '../module.ts';
import { likesEmbeds } from './likes.embeds.ts';
import { likesTypeDefs } from './likes.graphql.ts';
import { likesResolvers } from './likes.resolvers.ts';
import { likesMigrations } from './likes.migrations.ts';
import { toLikeView } from './likes.presenter.ts';
import { likesRoutes } from './likes.routes.ts';
import { DeletedLike, LikeView } from './likes.schemas.ts';
import { createLikesService, type LikeEvents } from './likes.service.ts';

/** Likes: REST `/comments/{id}/likes`, GraphQL `Comment.likes`. */
export const likesModule = defineModule({
  name: 'likes',
  createService: ({ db, config, services }: ModuleDeps<{ events: EventsService }>) =>
    createLikesService(
      db,
      services.events.recorderFor<LikeEvents>({
        'like.created': (like) => toLikeView(like, EVENT_LINK_PREFIX),
        'like.deleted': (deleted) => deleted,
      }),
      listSettingsOf(config),
    ),
  routes: restRoutes(likesRoutes, ({ likes, embedding }) => ({ likes, embedding })),
  embeds: likesEmbeds,
  migrations: likesMigrations,
  graphql: { typeDefs: likesTypeDefs, resolvers: likesResolvers },
  eventPayloads: { 'like.created': LikeView, 'like.deleted': DeletedLike } satisfies EventPayloadsOf<LikeEvents>,
});
