import { Type } from 'typebox';
import { Link, Named } from '../../core/http/schemas.ts';
import { userProperties } from '../users/users.representation.ts';
import { RESOURCES } from './me.service.ts';

const Reach = Type.Union([Type.Literal('all'), Type.Literal('own'), Type.Literal('none')]);
const ResourceRights = Named(
  'ResourceRights',
  Type.Object(
    { read: Reach, create: Reach, update: Reach, delete: Reach },
    { description: "How far each right reaches: every item, the caller's own, or none" },
  ),
);

/** `GET /me`: the caller (as `GET /users/{id}` shows them) and what they may do. */
export const MeView = Named(
  'Me',
  Type.Object({
    user: Type.Omit(Type.Object(userProperties), ['_links'], {
      description: 'The caller as `GET /users/{id}` shows them (its links are `_links.user`)',
    }),
    admin: Type.Boolean({ description: "Whether the caller's role is admin now (the database's, not the token's)" }),
    rights: Type.Object(Object.fromEntries(RESOURCES.map((name) => [name, ResourceRights]))),
    _links: Type.Object({ self: Link, user: Link }),
  }),
);
