import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { MeView } from './me.schemas.ts';
import type { MeService } from './me.service.ts';

/** REST adapter of `GET /me` (DECISIONS §20): any client's way to learn who its token is and what it may do. */
export const meRoutes: FastifyPluginAsyncTypebox<{ me: MeService }> = async (app, { me }) => {
  app.get(
    '/me',
    {
      config: { access: 'user' },
      schema: {
        tags: ['auth'],
        summary: 'The caller and their rights',
        response: { 200: MeView },
      },
    },
    async (request) => {
      const { user, admin, rights } = await me.whoAmI(request.principal);
      return {
        user,
        admin,
        rights,
        _links: { self: { href: `${request.apiPrefix}/me` }, user: { href: `${request.apiPrefix}/users/${user.id}` } },
      };
    },
  );
};
