import { Type } from 'typebox';
import { Link, Named } from '../../core/http/schemas.ts';

/**
 * A comment's REST representation without `_embedded`: the fields and links of `Comment`
 * (comments.schemas.ts), and the shape a post embeds its comments in. Apart from comments.schemas.ts so
 * that posts can embed comments while comments embed their post, without a circle of files.
 */
export const commentProperties = {
  id: Type.Integer(),
  postId: Type.Integer(),
  authorId: Type.Integer(),
  text: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
  _links: Type.Object({ self: Link, post: Link, author: Link, likes: Link }),
};

/** A comment as another resource embeds it. */
export const EmbeddableComment = Named('EmbeddedComment', Type.Object(commentProperties));
