import { Named } from '../../core/http/schemas.ts';
import { Type, type Static } from 'typebox';

export const TokenRequest = Type.Object(
  {
    email: Type.String({ minLength: 1, maxLength: 254, examples: ['admin@example.com'] }),
    password: Type.String({ minLength: 1, maxLength: 200 }),
  },
  { additionalProperties: false },
);
export type TokenRequest = Static<typeof TokenRequest>;

export const TokenResponse = Named(
  'Token',
  Type.Object({
    access_token: Type.String(),
    token_type: Type.Literal('Bearer'),
    expires_in: Type.Integer({ description: 'Seconds until the token expires' }),
  }),
);
