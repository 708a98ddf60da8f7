import type { AuthProvider } from 'react-admin';
import { api } from './http.ts';
import { requestToken, session } from './session.ts';

export interface Reach {
  read: 'all' | 'own' | 'none';
  create: 'all' | 'own' | 'none';
  update: 'all' | 'own' | 'none';
  delete: 'all' | 'own' | 'none';
}

/** `GET /api/v2/me`: who the token is and what they may do (DECISIONS §20). */
export interface Me {
  user: { id: number; name: string; email: string | null; role: string };
  admin: boolean;
  rights: Record<string, Reach>;
}

let me: Promise<Me> | undefined;

export function whoAmI(): Promise<Me> {
  me ??= api<Me>('/api/v2/me')
    .then((response) => response.body)
    .catch((error: unknown) => {
      me = undefined;
      throw error;
    });
  return me;
}

/** Signs in with e-mail and password (`POST /api/v2/auth/token`); the rights come from `GET /api/v2/me`. */
export const authProvider: AuthProvider = {
  async login({ username, password }: { username: string; password: string }) {
    const token = await requestToken(username, password);
    session.signIn(username, token);
    me = undefined;
    await whoAmI();
  },
  async logout() {
    session.signOut();
    me = undefined;
  },
  async checkAuth() {
    if (!session.token()) throw new Error('Sign in first');
  },
  // A 401 is handled where it happens (the password is asked again, the request retried): never a sign-out.
  async checkError() {},
  async getIdentity() {
    // No `fullName`: the user menu's button is then named by its label alone (its visible text would
    // not be part of its accessible name, an axe-core violation).
    const { user } = await whoAmI();
    return { id: user.id };
  },
  async getPermissions() {
    return whoAmI();
  },
};
