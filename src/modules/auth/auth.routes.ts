import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { TokenRequest, TokenResponse } from './auth.schemas.ts';
import type { AuthService } from './auth.service.ts';

export const authRoutes: FastifyPluginAsyncTypebox<{ auth: AuthService }> = async (app, { auth }) => {
  app.post(
    '/auth/token',
    {
      config: { access: 'public' },
      schema: {
        tags: ['auth'],
        summary: 'Exchange email and password for a bearer token',
        body: TokenRequest,
        response: { 200: TokenResponse },
      },
    },
    async (request, reply) => {
      // Tokens must never be cached (RFC 6749 §5.1).
      reply.header('cache-control', 'no-store');
      return auth.issueToken(request.body);
    },
  );
};
