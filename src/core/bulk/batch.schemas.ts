import { Type, type Static } from 'typebox';
import { Id, Named } from '../http/schemas.ts';
import { BATCH_OPS, MAX_BATCH_OPERATIONS } from './batch.ts';

/** DECISIONS §18: the envelope; each operation's `data` is checked by its single request's schema. */
export const BatchRequestBody = Named(
  'BatchRequest',
  Type.Object(
    {
      atomic: Type.Optional(
        Type.Boolean({ default: true, description: 'One transaction (default), or each operation alone' }),
      ),
      operations: Type.Array(
        Type.Object(
          {
            op: Type.Union(
              BATCH_OPS.map((op) => Type.Literal(op)),
              { description: 'upsert matches on the natural key: products `sku`, users `email`' },
            ),
            id: Type.Optional(Id),
            ifMatch: Type.Optional(
              Type.String({ minLength: 1, maxLength: 200, description: 'The ETag the GET of the target answers' }),
            ),
            data: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'The single write body' })),
          },
          { additionalProperties: false },
        ),
        { description: `At most ${MAX_BATCH_OPERATIONS} operations (else 413)` },
      ),
    },
    { additionalProperties: false },
  ),
);
export type BatchRequestBody = Static<typeof BatchRequestBody>;

const ErrorObject = Type.Object({
  code: Type.String(),
  message: Type.String(),
  details: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }))),
});

export const BatchResponse = Named(
  'BatchResponse',
  Type.Object(
    {
      results: Type.Array(
        Type.Object(
          {
            index: Type.Integer(),
            status: Type.Integer(),
            id: Type.Optional(Type.Integer()),
            etag: Type.Optional(Type.String()),
            error: Type.Optional(ErrorObject),
          },
          { additionalProperties: false },
        ),
      ),
      succeeded: Type.Optional(Type.Integer()),
      failed: Type.Optional(Type.Integer()),
    },
    { additionalProperties: false },
  ),
);
