import { Type, type Static, type TSchema } from 'typebox';
import { MAX_DB_INTEGER } from '../validation/input-rules.ts';
import { commaListPattern, oneOfPattern } from '../validation/comma-list-patterns.ts';

/** Schemas shared by every REST resource: links, pagination, ids and the error envelope. */

/**
 * Names a schema: the OpenAPI documents show it as `#/components/schemas/<name>`, so generated
 * clients get a named type (core/openapi hoists every titled schema). `title` is an annotation:
 * validation and serialization ignore it.
 */
export function Named<T extends TSchema>(name: string, schema: T): T {
  return Object.assign(schema, { title: name });
}

export const Link = Type.Object(
  { href: Type.String(), method: Type.Optional(Type.String()) },
  { title: 'Link', description: 'A hypermedia link; action links carry the method' },
);

export const Pagination = Type.Object(
  {
    page: Type.Integer(),
    limit: Type.Integer(),
    total: Type.Integer(),
    totalPages: Type.Integer(),
    hasNext: Type.Boolean(),
    hasPrev: Type.Boolean(),
  },
  { title: 'Pagination' },
);

export const ErrorEnvelope = Type.Object({
  error: Type.Object({
    code: Type.String(),
    message: Type.String(),
    details: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }))),
  }),
});

/**
 * Path ids: positive integers in canonical decimal that fit the database's integer columns; anything
 * else (`02`, `0x2`, `2e0`, ` 2`, 2147483648) names nothing and is a 404. The request validator checks
 * the text of every integer path parameter with `parseId` before ajv coerces it.
 */
export const Id = Type.Integer({ minimum: 1, maximum: MAX_DB_INTEGER });

/** An id in a body or a query filter (`productId`, `customerId`, `authorId`): out of range is a 422 naming it. */
export const IdField = (options: { description?: string } = {}) =>
  Type.Integer({ minimum: 1, maximum: MAX_DB_INTEGER, ...options });

/**
 * The body of an action `POST` (pay, cancel, refund, verify-email, promote-to-admin, like): none, or
 * `{}`. Anything else is refused like any strict body: a field is named, a non-object is a type error.
 */
export const EmptyBody = Type.Unsafe<Record<string, never> | null | undefined>({
  type: ['object', 'null'],
  properties: {},
  additionalProperties: false,
  description: 'No body, or an empty object',
});

/** A nullable value, as JSON Schema's type list (clearer errors than anyOf). */
export function Nullable<T extends TSchema>(schema: T) {
  const type = (schema as { type?: string }).type;
  return Type.Unsafe<Static<T> | null>({ ...schema, type: [type, 'null'] });
}

/** The page-list envelope of a resource. */
export function PageOf<T extends TSchema>(item: T, name?: string) {
  return Type.Object({ data: Type.Array(item), pagination: Pagination }, name ? { title: name } : {});
}

/** The optional page parameters every page-based list accepts (normalised by `pageWindow`). */
/**
 * `fields` of a resource whose representation has `names`: a comma list of them (pagination.ts's
 * `parseFields` reads it: items trimmed, empty ones skipped, a repeat counts once), so the pattern the
 * document states is the rule the route holds.
 */
export const FieldsQuery = (names: readonly string[]) =>
  Type.Optional(
    Type.String({
      description: 'Comma-separated field names; id is always included',
      pattern: commaListPattern(oneOfPattern(names), { empty: true, emptyItems: true }),
    }),
  );

export const PageQuery = {
  // Above the integer range no page can hold data; refusing it keeps the offset exact and small for the databases.
  page: Type.Optional(
    Type.Integer({
      maximum: MAX_DB_INTEGER,
      description: `Page number, from 1 (lower values are raised to 1; above ${MAX_DB_INTEGER} is 422)`,
    }),
  ),
  limit: Type.Optional(Type.Integer({ description: 'Page size (clamped between 1 and the maximum)' })),
};

/** An explicit zero-based offset (products): negative is raised to 0, above the integer range is 422. */
export const OffsetQuery = Type.Optional(
  Type.Integer({ maximum: MAX_DB_INTEGER, description: 'Zero-based count of skipped items; overrides page' }),
);
