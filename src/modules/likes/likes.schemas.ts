import { Type } from 'typebox';
import { Link, Named, PageOf, PageQuery } from '../../core/http/schemas.ts';

export const LikeView = Named(
  'Like',
  Type.Object({
    commentId: Type.Integer(),
    userId: Type.Integer(),
    createdAt: Type.String({ format: 'date-time' }),
    _links: Type.Object({ self: Link, user: Link }),
  }),
);

/** `data` of `like.deleted`: the comment and the user the like joined. */
export const DeletedLike = Named(
  'DeletedLike',
  Type.Object({ commentId: Type.Integer(), userId: Type.Integer() }, { additionalProperties: false }),
);

export const LikePage = PageOf(LikeView, 'LikePage');

export const LikesQuery = Type.Object({ ...PageQuery });
