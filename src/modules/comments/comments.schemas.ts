import { queriedPageOf } from '../../core/querying/list-page.ts';
import { listQueryParameters } from '../../core/querying/list-query-schema.ts';
import { COMMENT_QUERY } from './comments.query.ts';
import { Type, type Static } from 'typebox';
import { Link, Named, PageQuery } from '../../core/http/schemas.ts';
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

export const CommentView = Named(
  'Comment',
  Type.Object({
    id: Type.Integer(),
    postId: Type.Integer(),
    authorId: Type.Integer(),
    text: Type.String(),
    createdAt: Type.String({ format: 'date-time' }),
    _links: Type.Object({ self: Link, post: Link, author: Link, likes: Link }),
  }),
);

/** `data` of `comment.deleted`: the comment and the post it was on. */
export const DeletedComment = Named(
  'DeletedComment',
  Type.Object({ id: Type.Integer(), postId: Type.Integer() }, { additionalProperties: false }),
);

export const CommentPage = queriedPageOf(CommentView, 'CommentPage');

export const CommentsQuery = Type.Object({ ...PageQuery, ...listQueryParameters(COMMENT_QUERY) });
