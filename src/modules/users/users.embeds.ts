import { embedSource, toMany, type EmbedCatalogue } from '../../core/querying/embedding-relations.ts';
import type { User } from './user.ts';
import { toUserView } from './users.presenter.ts';
import type { UsersService } from './users.service.ts';

type UserView = ReturnType<typeof toUserView>;

/**
 * What `include` embeds of a user (DECISIONS §12): their first posts, newest first, as `GET /posts/{id}`
 * shows them (the posts module reads and presents them). Where another kind embeds a user (a post's or
 * a comment's author, a like's user), users are read by id in one batch and shown as `GET /users/{id}`
 * shows them, the e-mail included.
 */
export function usersEmbeds({ users }: { users: UsersService }): EmbedCatalogue {
  return {
    user: {
      relations: { posts: toMany('post', 'author', (user: UserView) => user.id) },
      source: embedSource<User>({
        readByIds: (ids, { viewer }) => users.findUsersByIds(viewer, ids),
        present: (user, { prefix, viewer }) => toUserView(user, prefix, viewer),
      }),
    },
  };
}
