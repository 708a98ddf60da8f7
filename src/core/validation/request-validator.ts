import type { ErrorObject, ValidateFunction } from 'ajv';
import { bodyAjv, textAjv, withStorableText } from './ajv.ts';
import { PARSED_LIST_PATTERNS } from './comma-list-patterns.ts';
import { parseId } from './input-rules.ts';
import { validatorOnFirstUse } from './on-first-use.ts';
import { oncePerSchema } from './once-per-schema.ts';

type Schema = Record<string, unknown>;

/** What Fastify hands its validator compiler for each part of each route. */
export interface RouteSchemaPart {
  schema: unknown;
  httpPart?: string | undefined;
}

/** Ajv's shape (with `schemaEnv`), so Fastify passes the parent and ajv may coerce the root. */
type Validator = ValidateFunction;

/**
 * Fastify's validator compiler for every REST route (and the GraphQL endpoint's HTTP parameters):
 * the shared input rules applied once, whatever the route.
 *
 * - Bodies and query strings: every string the schema declares must be storable text (no NUL, no
 *   unpaired surrogate), else 422 naming the field; bodies are not coerced, query strings are.
 * - Path parameters: an integer parameter is an id and must be written in canonical decimal
 *   (`parseId`); ajv alone would coerce `02`, `0x2`, ` 2` or `2e0` to 2. A failure here is a 404
 *   (error-envelope.ts maps every path-parameter failure so).
 *
 * Each is compiled on the first request that needs it (on-first-use.ts), once per schema and part.
 */
export const compileRequestValidator = oncePerSchema(
  (route: RouteSchemaPart) => validatorOnFirstUse(() => compileValidator(route)),
  (route) => route.httpPart,
);

function compileValidator({ schema, httpPart }: RouteSchemaPart): Validator {
  if (httpPart === 'params') return withCanonicalIds(schema as Schema, textAjv.compile(schema as Schema));
  const checked = withStorableText(schema) as Schema;
  if (httpPart === 'body') return bodyAjv.compile(checked);
  return textAjv.compile(withoutParsedLists(checked) as Schema);
}

/**
 * A query schema without the comma-list patterns its parsers hold (comma-list-patterns.ts): the parser
 * refuses the same values with a 422 that names the wrong item. Its parameters and their unions only.
 */
function withoutParsedLists(schema: unknown): unknown {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return schema;
  const copy: Schema = { ...(schema as Schema) };
  if (typeof copy.pattern === 'string' && PARSED_LIST_PATTERNS.has(copy.pattern)) delete copy.pattern;
  if (Array.isArray(copy.anyOf)) copy.anyOf = copy.anyOf.map(withoutParsedLists);
  if (copy.properties && typeof copy.properties === 'object') {
    copy.properties = Object.fromEntries(
      Object.entries(copy.properties as Schema).map(([name, sub]) => [name, withoutParsedLists(sub)]),
    );
  }
  return copy;
}

function withCanonicalIds(schema: Schema, validate: ValidateFunction): Validator {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const ids = Object.keys(properties).filter((name) => properties[name]?.type === 'integer');
  const validator = ((data: unknown, context?: Parameters<ValidateFunction>[1]) => {
    const params = (data ?? {}) as Record<string, unknown>;
    const wrong = ids.filter((name) => typeof params[name] === 'string' && parseId(params[name]) === undefined);
    if (wrong.length > 0) {
      validator.errors = wrong.map((name): ErrorObject => ({
        instancePath: `/${name}`,
        schemaPath: '#/canonicalId',
        keyword: 'canonicalId',
        params: {},
        message: 'is not an id',
      }));
      return false;
    }
    const valid = validate(data, context);
    validator.errors = validate.errors;
    return valid;
  }) as Validator;
  validator.schemaEnv = validate.schemaEnv;
  return validator;
}
