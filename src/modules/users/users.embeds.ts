import { relatedById, relatedByParent, type EmbedCatalogue, type View } from '../../core/querying/embedding.ts';
import { toPostView } from '../posts/posts.presenter.ts';
import type { PostsService } from '../posts/posts.service.ts';
import { toUserView } from './users.presenter.ts';
import type { UsersService } from './users.service.ts';

type UserView = ReturnType<typeof toUserView>;

/** What `include` embeds of a user (DECISIONS §12): their first posts, newest first, as `GET /posts/{id}` shows them. */
export function usersEmbeds({ posts }: { posts: PostsService }): EmbedCatalogue {
  return {
    user: {
      posts: relatedByParent({
        target: 'post',
        keyOf: (user: UserView) => user.id,
        readByParentIds: (ids, limit) => posts.findPostsByAuthorIds(ids, { limit }),
        present: (post, { prefix }) => toPostView(post, prefix),
      }),
    },
  };
}

/**
 * A relation to the user a parent names (a post's or a comment's author, a like's user), for the other
 * modules' declarations: read by id in one batch, the e-mail shown as `GET /users/{id}` shows it.
 */
export function embeddedUser<P extends View>(users: UsersService, keyOf: (parent: P) => number) {
  return relatedById({
    target: 'user',
    keyOf,
    readByIds: (ids, { viewer }) => users.findUsersByIds(viewer, ids),
    present: (user, { prefix }) => toUserView(user, prefix),
  });
}
