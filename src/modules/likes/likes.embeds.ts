import { toOne, type EmbedCatalogue } from '../../core/querying/embedding-relations.ts';
import type { toLikeView } from './likes.presenter.ts';

type LikeView = ReturnType<typeof toLikeView>;

/** What `include` embeds of a like (DECISIONS §12): the user who liked. */
export function likesEmbeds(): EmbedCatalogue {
  return {
    like: {
      relations: { user: toOne('user', (like: LikeView) => like.userId) },
    },
  };
}
