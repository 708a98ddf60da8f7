import { Type } from 'typebox';
import { Link, Named } from '../../core/http/schemas.ts';

/**
 * A post's REST representation without `_embedded`: the fields and links of `Post` (posts.schemas.ts),
 * and the shape another resource embeds a post in (a user's `posts`, a comment's `post`). Apart from
 * posts.schemas.ts so that users and comments can embed posts while posts embed them, without a circle
 * of files.
 */
export const PostLinks = Named('PostLinks', Type.Object({ self: Link, author: Link, comments: Link }));

export const postProperties = {
  id: Type.Integer(),
  title: Type.String(),
  content: Type.String(),
  authorId: Type.Integer(),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
  _links: PostLinks,
};

/** A post as another resource embeds it. */
export const EmbeddablePost = Named('EmbeddedPost', Type.Object(postProperties));
