import { Type, type TSchema } from 'typebox';
import { commaListPattern, oneOfPattern } from '../validation/comma-list-patterns.ts';
import { EMBEDDED_LIST_LIMIT, MAX_INCLUDE_DEPTH } from './embedding.ts';

/**
 * The schemas of `include` and `_embedded` (embedding.ts): the query parameter, and the optional
 * `_embedded` member of a representation, two levels deep at most, so no schema refers to itself.
 * The response schema must name every embedded member: the serializer writes only what it declares.
 */

type ObjectSchema = TSchema & { properties: Record<string, TSchema> };

/** How a relation's objects look under `_embedded`: one object or a list, and what they may embed in turn. */
export interface EmbeddedShape {
  readonly schema: TSchema;
  readonly many: boolean;
  readonly below?: Readonly<Record<string, EmbeddedShape>>;
}

/** One related object (a post's `author`); `below`: its own relations, one level down. */
export const embedOne = (schema: TSchema, below?: Record<string, EmbeddedShape>): EmbeddedShape => ({
  schema,
  many: false,
  ...(below ? { below } : {}),
});

/** A list of related objects (the comments of a post), the first 20. */
export const embedMany = (schema: TSchema, below?: Record<string, EmbeddedShape>): EmbeddedShape => ({
  schema,
  many: true,
  ...(below ? { below } : {}),
});

/** The object with its own `_embedded` when it has relations below: a new shape, so it loses the title of the plain one. */
function withBelow(shape: EmbeddedShape, depth: number): TSchema {
  if (!shape.below || depth >= MAX_INCLUDE_DEPTH) return shape.schema;
  const { properties } = shape.schema as ObjectSchema;
  return Type.Object({ ...properties, ...embeddedProperty(shape.below, depth + 1) });
}

/**
 * `_embedded`, for the properties of a representation: optional, present only when the request's
 * `include` names a relation; each relation's member optional too (absent when not asked for, or when
 * a related object does not exist or is not the caller's to read).
 */
export function embeddedProperty(relations: Readonly<Record<string, EmbeddedShape>>, depth = 1) {
  const members = Object.fromEntries(
    Object.entries(relations).map(([name, shape]) => {
      const schema = withBelow(shape, depth);
      return [name, Type.Optional(shape.many ? Type.Array(schema, { maxItems: EMBEDDED_LIST_LIMIT }) : schema)];
    }),
  );
  return {
    _embedded: Type.Optional(
      Type.Object(members, {
        description:
          depth === 1
            ? 'The related resources `include` asked for, each as its own read presents it (with `_links`)'
            : 'The related resources the second level of `include` asked for',
      }),
    ),
  };
}

/** The `include` paths a set of shapes answers: each relation, and each of its relations one level down. */
export function includePaths(relations: Readonly<Record<string, EmbeddedShape>>): string[] {
  return Object.entries(relations).flatMap(([name, shape]) => [
    name,
    ...Object.keys(shape.below ?? {}).map((below) => `${name}.${below}`),
  ]);
}

/**
 * The `include` query parameter of a read or list whose items embed `paths`: a comma list of them (the
 * embedding's parser trims each, reads an empty value as nothing, and refuses an empty item).
 */
export function includeParameter(paths: readonly string[]) {
  return {
    include: Type.Optional(
      Type.String({
        maxLength: 200,
        pattern: commaListPattern(oneOfPattern(paths), { empty: true }),
        description:
          `Related resources to embed under \`_embedded\`, a comma list of: ${paths.join(', ')}. ` +
          `At most ${MAX_INCLUDE_DEPTH} levels; an embedded list holds the first ${EMBEDDED_LIST_LIMIT}. ` +
          'Anything else is 422 naming `include`.',
        examples: [paths.slice(0, 2).join(',')],
      }),
    ),
  };
}
