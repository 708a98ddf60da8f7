import { Type, type Static } from 'typebox';
import { Nullable } from '../core/http/schemas.ts';

const Map = Type.Object({}, { additionalProperties: true });

/** A GraphQL-over-HTTP request body. Unknown keys are ignored, as the spec lets clients add their own. */
export const GraphQLPostBody = Type.Object(
  {
    query: Type.String({ description: 'The GraphQL document' }),
    variables: Type.Optional(Nullable(Map)),
    operationName: Type.Optional(Nullable(Type.String())),
    extensions: Type.Optional(Nullable(Map)),
  },
  { additionalProperties: true },
);
export type GraphQLPostBody = Static<typeof GraphQLPostBody>;

/** GET parameters: `variables` and `extensions` are JSON text. */
export const GraphQLGetQuery = Type.Object(
  {
    query: Type.String({ description: 'The GraphQL document (queries only)' }),
    variables: Type.Optional(Type.String({ description: 'JSON object' })),
    operationName: Type.Optional(Type.String()),
    extensions: Type.Optional(Type.String({ description: 'JSON object' })),
  },
  { additionalProperties: true },
);
export type GraphQLGetQuery = Static<typeof GraphQLGetQuery>;

const ErrorEntry = Type.Object(
  {
    message: Type.String(),
    locations: Type.Optional(Type.Array(Type.Object({ line: Type.Integer(), column: Type.Integer() }))),
    path: Type.Optional(Type.Array(Type.Union([Type.String(), Type.Integer()]))),
    extensions: Type.Object({ code: Type.String() }, { additionalProperties: true }),
  },
  { additionalProperties: true },
);

/** Documentation of the answer; the handler writes it as JSON text itself (two media types). */
export const GraphQLResponse = Type.Object({
  data: Type.Optional(Nullable(Type.Object({}, { additionalProperties: true }))),
  errors: Type.Optional(Type.Array(ErrorEntry)),
});
