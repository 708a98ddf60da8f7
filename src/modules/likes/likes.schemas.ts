import { Type } from 'typebox';
import { Link, Named, PageQuery } from '../../core/http/schemas.ts';
import {
  embeddedProperty,
  embedMany,
  embedOne,
  includeParameter,
  includePaths,
} from '../../core/querying/embedding-schema.ts';
import { queriedPageOf } from '../../core/querying/list-page.ts';
import { EmbeddablePost } from '../posts/posts.representation.ts';
import { EmbeddableUser } from '../users/users.representation.ts';
import { listQueryParameters } from '../../core/querying/list-query-schema.ts';
import { LIKE_QUERY } from './likes.query.ts';

/** What a like embeds (`include`): its user, and the user's posts. */
const LIKE_EMBEDS = { user: embedOne(EmbeddableUser, { posts: embedMany(EmbeddablePost) }) };
const LikeInclude = includeParameter(includePaths(LIKE_EMBEDS));
export const LikeReadQuery = Type.Object(LikeInclude);

export const LikeView = Named(
  'Like',
  Type.Object({
    commentId: Type.Integer(),
    userId: Type.Integer(),
    createdAt: Type.String({ format: 'date-time' }),
    _links: Type.Object({ self: Link, user: Link }),
    ...embeddedProperty(LIKE_EMBEDS),
  }),
);

/** `data` of `like.deleted`: the comment and the user the like joined. */
export const DeletedLike = Named(
  'DeletedLike',
  Type.Object({ commentId: Type.Integer(), userId: Type.Integer() }, { additionalProperties: false }),
);

export const LikePage = queriedPageOf(LikeView, 'LikePage');

export const LikesQuery = Type.Object({ ...PageQuery, ...LikeInclude, ...listQueryParameters(LIKE_QUERY) });
