import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { AppError } from '../../core/errors/app-error.ts';
import { strongEtag } from '../../core/http/caching.ts';
import { Id } from '../../core/http/schemas.ts';
import { AVATAR_MAX_BYTES, AVATAR_TYPES } from './avatar-image.ts';
import { AvatarBody, AvatarInfoView } from './avatars.schemas.ts';
import type { AvatarsService } from './avatars.service.ts';

const UserParams = Type.Object({ userId: Id });
const tags = ['avatars'];
/** Served images never run script, even an SVG opened directly. */
const IMAGE_HEADERS = {
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
};

/**
 * REST adapter for avatars. The image parsers exist only in this plugin's scope: everywhere else
 * the API still accepts JSON alone.
 */
export const avatarsRoutes: FastifyPluginAsyncTypebox<{ avatars: AvatarsService }> = async (app, { avatars }) => {
  app.addContentTypeParser(
    [...AVATAR_TYPES],
    { parseAs: 'buffer', bodyLimit: AVATAR_MAX_BYTES },
    (_request, body, done) => done(null, body),
  );
  app.addContentTypeParser('*', (_request, _payload, done) =>
    done(new AppError('UNSUPPORTED_MEDIA_TYPE', `Send the avatar as one of ${AVATAR_TYPES.join(', ')}`), undefined),
  );

  app.get(
    '/users/:userId/avatar',
    {
      config: { access: 'user', openapi: { responseMedia: { 200: ['image/svg+xml', ...AVATAR_TYPES] } } },
      schema: {
        tags,
        summary: "A user's avatar: the uploaded image, or a generated SVG with the initials",
        params: UserParams,
        response: { 200: AvatarBody },
      },
    },
    async (request, reply) => {
      const image = await avatars.getAvatar(request.principal, request.params.userId);
      return reply.headers(IMAGE_HEADERS).type(image.contentType).send(image.body);
    },
  );

  app.put(
    '/users/:userId/avatar',
    {
      config: {
        access: 'user',
        openapi: {
          requestMedia: AVATAR_TYPES,
          errors: {
            422: {
              description: 'The bytes are not an image of the declared type',
              code: 'VALIDATION_ERROR',
              message: 'The body is not a valid image/png',
            },
          },
        },
      },
      bodyLimit: AVATAR_MAX_BYTES,
      schema: {
        tags,
        summary: 'Upload an avatar (PNG, JPEG or WebP, at most 1 MiB; the user or an admin)',
        params: UserParams,
        response: { 200: AvatarInfoView, 201: AvatarInfoView },
      },
    },
    async (request, reply) => {
      const upload = { contentType: request.headers['content-type'], data: request.body };
      const { avatar, created } = await avatars.putAvatar(request.principal, request.params.userId, upload);
      const self = `${request.apiPrefix}/users/${avatar.userId}/avatar`;
      const view = {
        ...avatar,
        _links: { self: { href: self }, user: { href: `${request.apiPrefix}/users/${avatar.userId}` } },
      };
      if (created) reply.header('location', self);
      return reply
        .code(created ? 201 : 200)
        .header('etag', strongEtag(request.body as Buffer))
        .send(view);
    },
  );
};
