import { relatedById, type EmbedCatalogue } from '../../core/querying/embedding.ts';
import { toUserView } from '../users/users.presenter.ts';
import type { UsersService } from '../users/users.service.ts';
import type { toLikeView } from './likes.presenter.ts';

type LikeView = ReturnType<typeof toLikeView>;

/** What `include` embeds of a like (DECISIONS §12): the user who liked. */
export function likesEmbeds({ users }: { users: UsersService }): EmbedCatalogue {
  return {
    like: {
      user: relatedById({
        target: 'user',
        keyOf: (like: LikeView) => like.userId,
        readByIds: (ids, { viewer }) => users.findUsersByIds(viewer, ids),
        present: (user, { prefix }) => toUserView(user, prefix),
      }),
    },
  };
}
