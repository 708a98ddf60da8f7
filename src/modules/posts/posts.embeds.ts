import { embedSource, toMany, toOne, type EmbedCatalogue } from '../../core/querying/embedding-relations.ts';
import type { Post } from './post.ts';
import { toPostView } from './posts.presenter.ts';
import type { PostsService } from './posts.service.ts';

type PostView = ReturnType<typeof toPostView>;

/**
 * What `include` embeds of a post (DECISIONS §12): its author (the e-mail shown as a direct read of the
 * user shows it) and its first comments, oldest first. Where another kind embeds posts (a comment's
 * post, a user's posts, newest first), they are read in one batch and shown as `GET /posts/{id}` shows them.
 */
export function postsEmbeds({ posts }: { posts: PostsService }): EmbedCatalogue {
  return {
    post: {
      relations: {
        author: toOne('user', (post: PostView) => post.authorId),
        comments: toMany('comment', 'post', (post: PostView) => post.id),
      },
      source: embedSource<Post>({
        readByIds: (ids) => posts.findPostsByIds(ids),
        readByParentIds: { author: (ids, limit) => posts.findPostsByAuthorIds(ids, { limit }) },
        present: (post, { prefix }) => toPostView(post, prefix),
      }),
    },
  };
}
