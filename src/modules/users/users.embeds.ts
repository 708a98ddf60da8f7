import { relatedByParent, type EmbedCatalogue } from '../../core/querying/embedding.ts';
import { toPostView } from '../posts/posts.presenter.ts';
import type { PostsService } from '../posts/posts.service.ts';
import type { toUserView } from './users.presenter.ts';

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
