import { Type } from 'typebox';
import { Link, Named } from '../../core/http/schemas.ts';

export const AvatarInfoView = Named(
  'AvatarInfo',
  Type.Object({
    userId: Type.Integer(),
    contentType: Type.String(),
    size: Type.Integer({ description: 'Bytes' }),
    updatedAt: Type.String({ format: 'date-time' }),
    _links: Type.Object({ self: Link, user: Link }),
  }),
);

/** The body of GET is the image itself, never JSON: documented here, not serialized. */
export const AvatarBody = Type.Unsafe<Buffer>({
  type: 'string',
  format: 'binary',
  description: 'The uploaded PNG, JPEG or WebP bytes, or a generated image/svg+xml with the initials',
});
