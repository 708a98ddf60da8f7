import { decoyHash, verifyPassword } from '../../core/access/passwords.ts';
import type { TokenService } from '../../core/access/tokens.ts';
import type { Db } from '../../core/db/database.ts';
import { AppError } from '../../core/errors/app-error.ts';
import { createChecker } from '../../core/validation/ajv.ts';
import { findUserByEmail } from '../users/users.reads.ts';
import { TokenRequest } from './auth.schemas.ts';

const checkTokenRequest = createChecker<TokenRequest>(TokenRequest);

export function createAuthService(db: Db, tokens: TokenService) {
  return {
    /**
     * Exchanges credentials for a token. An unknown email and a wrong password give the same
     * answer after the same work (a hash is always checked), so neither reveals who has an account.
     */
    async issueToken(raw: unknown) {
      const input = checkTokenRequest(raw);
      const user = await findUserByEmail(db, input.email.trim().toLowerCase());
      const matches = await verifyPassword(input.password, user?.password_hash ?? (await decoyHash()));
      if (!user?.password_hash || !matches) {
        throw new AppError('INVALID_CREDENTIALS', 'Email or password is incorrect', {
          headers: { 'WWW-Authenticate': 'Bearer realm="content-service"' },
        });
      }
      if (user.status === 'suspended') throw AppError.forbidden('This account is suspended');
      return tokens.issue({ userId: user.id, role: user.role });
    },

    /**
     * A token for the account with this email, its password not asked: only for a token this server hands
     * out itself (GraphiQL's demo preset, development only), never for a caller's request. Undefined when
     * no such account may sign in (none, no password, suspended).
     */
    async issueTokenWithoutPassword(email: string) {
      const user = await findUserByEmail(db, email.trim().toLowerCase());
      if (!user?.password_hash || user.status === 'suspended') return undefined;
      return tokens.issue({ userId: user.id, role: user.role });
    },
  };
}

export type AuthService = ReturnType<typeof createAuthService>;
