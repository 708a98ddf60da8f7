import { queriedPageOf } from '../../core/querying/list-page.ts';
import { listQueryParameters } from '../../core/querying/list-query-schema.ts';
import { ALL_COMMENTS_QUERY, COMMENT_QUERY } from './comments.query.ts';
import { TrashedListParameter, TrashedReadParameter, trashProperties } from '../history/trash.representation.ts';
import { Type, type Static } from 'typebox';
import { Named, PageQuery } from '../../core/http/schemas.ts';
import {
  embeddedProperty,
  embedMany,
  embedOne,
  includeParameter,
  includePaths,
} from '../../core/querying/embedding-schema.ts';
import { EmbeddablePost } from '../posts/posts.representation.ts';
import { EmbeddableUser } from '../users/users.representation.ts';
import { EmbeddableComment, commentProperties } from './comments.representation.ts';
import { NOT_BLANK } from '../../core/validation/ajv.ts';

/** Field rule of DECISIONS §2, shared by REST validation and the service. */
export const CommentText = Type.String({
  minLength: 1,
  maxLength: 10_000,
  pattern: NOT_BLANK,
  examples: ['Great post!'],
});

/** The author is always the caller and the post comes from the path: the body carries only the text. */
export const CreateCommentInput = Type.Object({ text: CommentText }, { additionalProperties: false });
export type CreateCommentInput = Static<typeof CreateCommentInput>;

/** What a comment embeds (`include`): its author and its post, and their own relations. */
const COMMENT_EMBEDS = {
  author: embedOne(EmbeddableUser, { posts: embedMany(EmbeddablePost) }),
  post: embedOne(EmbeddablePost, { author: embedOne(EmbeddableUser), comments: embedMany(EmbeddableComment) }),
};
const CommentInclude = includeParameter(includePaths(COMMENT_EMBEDS));
export const CommentReadQuery = Type.Object(CommentInclude);
/** `GET /comments/{id}`: with `trashed=include`, a comment in the trash too (DECISIONS §19). */
export const CommentByIdQuery = Type.Object({ ...CommentInclude, ...TrashedReadParameter });

export const CommentView = Named(
  'Comment',
  Type.Object({ ...commentProperties, ...trashProperties, ...embeddedProperty(COMMENT_EMBEDS) }),
);

/** `data` of `comment.deleted`: the comment and the post it was on. */
export const DeletedComment = Named(
  'DeletedComment',
  Type.Object({ id: Type.Integer(), postId: Type.Integer() }, { additionalProperties: false }),
);

export const CommentPage = queriedPageOf(CommentView, 'CommentPage');

export const CommentsQuery = Type.Object({
  ...PageQuery,
  ...CommentInclude,
  ...listQueryParameters(COMMENT_QUERY),
  ...TrashedListParameter,
});

/** `GET /comments` (DECISIONS §20): every comment, with the §12 filters `postId`, `authorId`, `createdAt`. */
export const AllCommentsQuery = Type.Object({
  ...PageQuery,
  ...CommentInclude,
  ...listQueryParameters(ALL_COMMENTS_QUERY),
  ...TrashedListParameter,
});
