import { Type, type Static, type TSchema } from 'typebox';

/** Schemas shared by every REST resource: links, pagination, ids and the error envelope. */

export const Link = Type.Object(
  { href: Type.String(), method: Type.Optional(Type.String()) },
  { description: 'A hypermedia link; action links carry the method' },
);

export const Pagination = Type.Object({
  page: Type.Integer(),
  limit: Type.Integer(),
  total: Type.Integer(),
  totalPages: Type.Integer(),
  hasNext: Type.Boolean(),
  hasPrev: Type.Boolean(),
});

export const ErrorEnvelope = Type.Object({
  error: Type.Object({
    code: Type.String(),
    message: Type.String(),
    details: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }))),
  }),
});

/** Path ids: positive integers that fit the database's integer column; anything else is a 404. */
export const Id = Type.Integer({ minimum: 1, maximum: 2147483647 });

/** A nullable value, as JSON Schema's type list (clearer errors than anyOf). */
export function Nullable<T extends TSchema>(schema: T) {
  const type = (schema as { type?: string }).type;
  return Type.Unsafe<Static<T> | null>({ ...schema, type: [type, 'null'] });
}

/** The page-list envelope of a resource. */
export function PageOf<T extends TSchema>(item: T) {
  return Type.Object({ data: Type.Array(item), pagination: Pagination });
}

/** The optional page parameters every page-based list accepts (normalised by `pageWindow`). */
export const PageQuery = {
  page: Type.Optional(Type.Integer({ description: 'Page number, from 1 (lower values are raised to 1)' })),
  limit: Type.Optional(Type.Integer({ description: 'Page size (clamped between 1 and the maximum)' })),
};
