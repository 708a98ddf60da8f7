import { Type } from 'typebox';
import { Link, Named, PageQuery } from '../../core/http/schemas.ts';
import { queriedPageOf } from '../../core/querying/list-page.ts';
import { listQueryParameters } from '../../core/querying/list-query-schema.ts';
import { LIKE_QUERY } from './likes.query.ts';

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

export const LikePage = queriedPageOf(LikeView, 'LikePage');

export const LikesQuery = Type.Object({ ...PageQuery, ...listQueryParameters(LIKE_QUERY) });
