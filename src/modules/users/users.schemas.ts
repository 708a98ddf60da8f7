import { TrashedListParameter, TrashedReadParameter, trashProperties } from '../history/trash.representation.ts';
import { Type, type Static } from 'typebox';
import { FieldsQuery, Named, Nullable, PageQuery } from '../../core/http/schemas.ts';
import {
  embeddedProperty,
  embedMany,
  embedOne,
  includeParameter,
  includePaths,
} from '../../core/querying/embedding-schema.ts';
import { queriedPageOf } from '../../core/querying/list-page.ts';
import { CountAndCursorParameters, filterParameters, sortPattern } from '../../core/querying/list-query-schema.ts';
import { EMAIL_PATTERN, NOT_BLANK } from '../../core/validation/ajv.ts';
import { USER_QUERY } from './users.query.ts';
import { USER_FIELDS } from './user.ts';
import { EmbeddableComment } from '../comments/comments.representation.ts';
import { EmbeddablePost } from '../posts/posts.representation.ts';
import { EmbeddableUser, Role, UserStatus, userProperties } from './users.representation.ts';

/** Field rules of DECISIONS §2, declared once: REST validates with them and so do the services. */
export const UserName = Type.String({ minLength: 1, maxLength: 100, pattern: NOT_BLANK, examples: ['Ada Lovelace'] });
export const Email = Type.String({
  format: 'email',
  pattern: EMAIL_PATTERN,
  maxLength: 254,
  examples: ['ada@example.com'],
});
export const Age = Nullable(Type.Integer({ minimum: 0, maximum: 150 }));
export const PASSWORD_LENGTH = { min: 8, max: 200 } as const;
export const Password = Type.String({
  minLength: PASSWORD_LENGTH.min,
  maxLength: PASSWORD_LENGTH.max,
  writeOnly: true,
});
export { Role, UserStatus };

const writable = {
  age: Type.Optional(Age),
  password: Type.Optional(Password),
  role: Type.Optional(Role),
  status: Type.Optional(UserStatus),
};

export const CreateUserInput = Type.Object(
  { name: UserName, email: Email, ...writable },
  { additionalProperties: false, description: 'Sign-up; only an admin may set role or status' },
);
export type CreateUserInput = Static<typeof CreateUserInput>;

export const ReplaceUserInput = Type.Object(
  { name: UserName, email: Email, ...writable },
  { additionalProperties: false, description: 'Full replacement: an absent age becomes null' },
);
export type ReplaceUserInput = Static<typeof ReplaceUserInput>;

export const UpdateUserInput = Type.Object(
  {
    name: Type.Optional(UserName),
    email: Type.Optional(Email),
    ...writable,
  },
  { additionalProperties: false, description: 'Partial update: only the fields sent change' },
);
export type UpdateUserInput = Static<typeof UpdateUserInput>;

/** What a user embeds (`include`): their posts, newest first, and the posts' own relations. */
const USER_EMBEDS = {
  posts: embedMany(EmbeddablePost, { author: embedOne(EmbeddableUser), comments: embedMany(EmbeddableComment) }),
};

/** `include` of a user's reads. */
export const UserReadQuery = Type.Object(includeParameter(includePaths(USER_EMBEDS)));
/** `GET /users/{id}`: with `trashed=include`, a user in the trash too (admins; DECISIONS §19). */
export const UserByIdQuery = Type.Object({ ...includeParameter(includePaths(USER_EMBEDS)), ...TrashedReadParameter });

export const ListUsersQuery = Type.Object({
  ...PageQuery,
  role: Type.Optional(Role),
  status: Type.Optional(UserStatus),
  sort: Type.Optional(
    Type.String({
      maxLength: 200,
      description:
        'Comma-separated fields (id, name, email (admins), age, role, status, emailVerified, createdAt); a leading `-` sorts that field descending; ties break by id',
      pattern: sortPattern(USER_QUERY),
    }),
  ),
  order: Type.Optional(Type.Enum(['asc', 'desc'], { description: 'The direction of the sort fields without `-`' })),
  fields: FieldsQuery(USER_FIELDS),
  ...CountAndCursorParameters,
  ...includeParameter(includePaths(USER_EMBEDS)),
  ...filterParameters(USER_QUERY),
  ...TrashedListParameter,
});
export type ListUsersQuery = Static<typeof ListUsersQuery>;

/** The user as their reads answer it; `_embedded` with `include` only (their posts). */
export const UserView = Named(
  'User',
  Type.Object({ ...userProperties, ...trashProperties, ...embeddedProperty(USER_EMBEDS) }),
);

/** `data` of `user.deleted` (their posts, comments and likes went with them, with no events of their own). */
export const DeletedUser = Named('DeletedUser', Type.Object({ id: Type.Integer() }, { additionalProperties: false }));

/** `data` of `user.erased` (DECISIONS §19): the id alone; the tombstone keeps no personal value to send. */
export const ErasedUser = Named('ErasedUser', Type.Object({ id: Type.Integer() }, { additionalProperties: false }));

/** List items may be cut down by `fields`, so every property is optional there. */
export const UserList = queriedPageOf(Named('UserFields', Type.Partial(UserView)), 'UserPage');
