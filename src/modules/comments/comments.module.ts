import { listSettingsOf } from '../../core/querying/list-grammar.ts';
import { EVENT_LINK_PREFIX } from '../events/event-recorder.ts';
import type { EventsService } from '../events/events.service.ts';
import type { EventPayloadsOf } from '../events/event-payloads.ts';
import { TRASH_EVENT_VIEWS, type TrashEvents } from '../history/trash.representation.ts';
import { createTrash } from '../history/trash.ts';
import { defineModule, restRoutes, type ModuleDeps } from '../module.ts';
import { commentsEmbeds } from './comments.embeds.ts';
import { commentsMigrations } from './comments.migrations.ts';
import { toCommentView } from './comments.presenter.ts';
import { commentsTypeDefs } from './comments.graphql.ts';
import { commentsResolvers } from './comments.resolvers.ts';
import { commentsRoutes } from './comments.routes.ts';
import { CommentView, DeletedComment } from './comments.schemas.ts';
import { createCommentsService, type CommentEvents } from './comments.service.ts';

/** Comments: REST `/posts/{id}/comments`, GraphQL `Comment`. */
export const commentsModule = defineModule({
  name: 'comments',
  createService: ({ db, config, services }: ModuleDeps<{ events: EventsService }>) =>
    createCommentsService(
      db,
      services.events.recorderFor<CommentEvents>({
        'comment.created': (comment) => toCommentView(comment, EVENT_LINK_PREFIX),
        'comment.deleted': (deleted) => deleted,
        ...TRASH_EVENT_VIEWS,
      }),
      listSettingsOf(config),
      createTrash({ retentionDays: config.TRASH_RETENTION_DAYS }),
    ),
  routes: restRoutes(commentsRoutes, ({ comments, embedding }) => ({ comments, embedding })),
  embeds: commentsEmbeds,
  migrations: commentsMigrations,
  graphql: { typeDefs: commentsTypeDefs, resolvers: commentsResolvers },
  eventPayloads: {
    'comment.created': CommentView,
    'comment.deleted': DeletedComment,
  } satisfies EventPayloadsOf<Omit<CommentEvents, keyof TrashEvents>>,
});
