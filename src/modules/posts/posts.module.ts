import { listSettingsOf } from '../../core/querying/list-grammar.ts';
import { EVENT_LINK_PREFIX } from '../events/event-recorder.ts';
import type { EventsService } from '../events/events.service.ts';
import type { EventPayloadsOf } from '../events/event-payloads.ts';
import { TRASH_EVENT_VIEWS, type TrashEvents } from '../history/trash.representation.ts';
import { createTrash } from '../history/trash.ts';
import { defineModule, restRoutes, type ModuleDeps } from '../module.ts';
import { postsEmbeds } from './posts.embeds.ts';
import { toPostView } from './posts.presenter.ts';
import { postsTypeDefs } from './posts.graphql.ts';
import { postsMigrations } from './posts.migrations.ts';
import { postsResolvers } from './posts.resolvers.ts';
import { postsRoutes } from './posts.routes.ts';
import { DeletedPostPayload, PostView } from './posts.schemas.ts';
import { createPostsService, type PostEvents } from './posts.service.ts';

/** Posts: REST `/posts` and `/users/{id}/posts`, GraphQL `Post`, `post`, `posts` and `createPost`. */
export const postsModule = defineModule({
  name: 'posts',
  createService: ({ db, config, services }: ModuleDeps<{ events: EventsService }>) =>
    createPostsService(
      db,
      services.events.recorderFor<PostEvents>({
        'post.created': (post) => toPostView(post, EVENT_LINK_PREFIX),
        'post.updated': (post) => toPostView(post, EVENT_LINK_PREFIX),
        'post.deleted': (deleted) => deleted,
        ...TRASH_EVENT_VIEWS,
      }),
      listSettingsOf(config),
      createTrash({ retentionDays: config.TRASH_RETENTION_DAYS }),
    ),
  routes: restRoutes(postsRoutes, ({ posts, embedding }) => ({ posts, embedding })),
  embeds: postsEmbeds,
  graphql: { typeDefs: postsTypeDefs, resolvers: postsResolvers },
  migrations: postsMigrations,
  eventPayloads: {
    'post.created': PostView,
    'post.updated': PostView,
    'post.deleted': DeletedPostPayload,
  } satisfies EventPayloadsOf<Omit<PostEvents, keyof TrashEvents>>,
});
