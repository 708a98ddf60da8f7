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

export const LikePage = PageOf(LikeView, 'LikePage');

export const LikesQuery = Type.Object({ ...PageQuery });
