export type Role = 'user' | 'admin';

/** The verified caller of a request, taken from the token alone (no database lookup). */
export interface Principal {
  userId: number;
  role: Role;
}

export const isAdmin = (principal: Principal | null): boolean => principal?.role === 'admin';
