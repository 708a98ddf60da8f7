/** The fixed answer of the ceiling and of the bare Fastify floor: one user, about 200 bytes of JSON. */
export const FIXED_USER = {
  id: 1,
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  age: 36,
  role: 'user',
  status: 'active',
  emailVerified: true,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};
