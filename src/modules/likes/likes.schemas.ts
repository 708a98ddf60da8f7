import { Type } from 'typebox';
import { Link, PageOf, PageQuery } from '../../core/http/schemas.ts';

export const LikeView = Type.Object({
  commentId: Type.Integer(),
  userId: Type.Integer(),
  createdAt: Type.String({ format: 'date-time' }),
  _links: Type.Object({ self: Link, user: Link }),
});

export const LikePage = PageOf(LikeView);

export const LikesQuery = Type.Object({ ...PageQuery });

/**
 * Liking takes no fields (the caller is the liker). No body or `{}` is fine; an object with fields
 * is refused like any strict body, naming each field. (`if` lets a missing body through.)
 */
export const EmptyBody = Type.Unsafe<Record<string, never> | undefined>({
  if: { type: 'object' },
  then: { type: 'object', properties: {}, additionalProperties: false },
  description: 'No body, or an empty object',
});
