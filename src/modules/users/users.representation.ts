import { Type } from 'typebox';
import { Link, Named, Nullable } from '../../core/http/schemas.ts';

/**
 * A user's REST representation without `_embedded`: the fields and links of `User`
 * (users.schemas.ts), and the shape another resource embeds a user in (a post's `author`). Apart from
 * users.schemas.ts so that posts, comments and likes can embed a user while users embed their posts,
 * without a circle of files.
 */
export const Role = Type.Enum(['user', 'admin']);
export const UserStatus = Type.Enum(['active', 'inactive', 'suspended']);

/** `update` and `delete` only for a caller who may follow them: the user themself or an admin (users.presenter.ts). */
export const UserLinks = Named(
  'UserLinks',
  Type.Object(
    {
      self: Link,
      posts: Link,
      avatar: Link,
      update: Type.Optional(Link),
      delete: Type.Optional(Link),
    },
    { description: '`update` and `delete` are present only for the user themself and administrators' },
  ),
);

export const userProperties = {
  id: Type.Integer(),
  name: Type.String(),
  email: Nullable(Type.String({ description: 'Shown to the user and to admins; null for anyone else' })),
  age: Nullable(Type.Integer()),
  role: Role,
  status: UserStatus,
  emailVerified: Type.Boolean(),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
  _links: UserLinks,
};

/** A user as another resource embeds it. */
export const EmbeddableUser = Named('EmbeddedUser', Type.Object(userProperties));
