import { listSettingsOf } from '../../core/querying/list-grammar.ts';
import type { EventsService } from '../events/events.service.ts';
import { EVENT_LINK_PREFIX, EVENT_VIEWER } from '../events/event-recorder.ts';
import type { EventPayloadsOf } from '../events/event-payloads.ts';
import { TRASH_EVENT_VIEWS, type TrashEvents } from '../history/trash.representation.ts';
import { createTrash } from '../history/trash.ts';
import { defineModule, restRoutes, type ModuleDeps } from '../module.ts';
import { usersEmbeds } from './users.embeds.ts';
import { usersMigrations } from './users.migrations.ts';
import { toUserView } from './users.presenter.ts';
import { usersTypeDefs } from './users.graphql.ts';
import { usersResolvers } from './users.resolvers.ts';
import { usersRoutes } from './users.routes.ts';
import { DeletedUser, ErasedUser, UserView } from './users.schemas.ts';
import { createUsersService, type UserEvents } from './users.service.ts';

/** Users: REST `/users`, GraphQL `User`, `user`, `users` and the user mutations. */
export const usersModule = defineModule({
  name: 'users',
  createService: ({ db, config, services }: ModuleDeps<{ events: EventsService }>) =>
    createUsersService(
      db,
      services.events.recorderFor<UserEvents>({
        'user.created': (user) => toUserView(user, EVENT_LINK_PREFIX, EVENT_VIEWER),
        'user.updated': (user) => toUserView(user, EVENT_LINK_PREFIX, EVENT_VIEWER),
        'user.deleted': (deleted) => deleted,
        'user.erased': (erased) => erased,
        ...TRASH_EVENT_VIEWS,
      }),
      listSettingsOf(config),
      createTrash({ retentionDays: config.TRASH_RETENTION_DAYS }),
    ),
  routes: restRoutes(usersRoutes, ({ users, embedding, idempotency }) => ({ users, embedding, idempotency })),
  embeds: usersEmbeds,
  migrations: usersMigrations,
  graphql: { typeDefs: usersTypeDefs, resolvers: usersResolvers },
  eventPayloads: {
    'user.created': UserView,
    'user.updated': UserView,
    'user.deleted': DeletedUser,
    'user.erased': ErasedUser,
  } satisfies EventPayloadsOf<Omit<UserEvents, keyof TrashEvents>>,
});
