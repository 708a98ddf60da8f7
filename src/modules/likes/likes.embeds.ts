import type { EmbedCatalogue } from '../../core/querying/embedding.ts';
import { embeddedUser } from '../users/users.embeds.ts';
import type { UsersService } from '../users/users.service.ts';
import type { toLikeView } from './likes.presenter.ts';

type LikeView = ReturnType<typeof toLikeView>;

/** What `include` embeds of a like (DECISIONS §12): the user who liked. */
export function likesEmbeds({ users }: { users: UsersService }): EmbedCatalogue {
  return {
    like: {
      user: embeddedUser(users, (like: LikeView) => like.userId),
    },
  };
}
