import type { TokenService } from '../../core/access/tokens.ts';
import { defineModule, restRoutes, type ModuleDeps } from '../module.ts';
import { authRoutes } from './auth.routes.ts';
import { createAuthService } from './auth.service.ts';

/** Sign-in: `POST /auth/token` issues a token for e-mail and password. */
export const authModule = defineModule({
  name: 'auth',
  createService: ({ db, services }: ModuleDeps<{ tokens: TokenService }>) => createAuthService(db, services.tokens),
  routes: restRoutes(authRoutes, ({ auth }) => ({ auth })),
});
